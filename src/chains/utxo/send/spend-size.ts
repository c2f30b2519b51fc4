// The size of a spend before it is signed, so it is signed once, with its fee: every signature
// counted at its longest (72 bytes with the sighash byte: DER of a 33-byte r, whose top bit is
// set, and a 32-byte s, low-S as nodes require), so the fee it sets is never below the rate times
// the signed transaction's size. A signature is a byte shorter about half the time: a P2WPKH input
// then costs a quarter of a virtual byte less than counted, a P2PKH one a byte.
import type { UtxoCoin } from '../coins.ts';

const SIGNATURE = 72;
const PUBKEY = 33;

/** Bytes of a Bitcoin CompactSize length prefix. */
const compactSize = (n: number): number => (n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9);

/** The most virtual bytes a spend of `inputs` of the coin's own script, paying these output scripts, has once signed. */
export function spendVbytes(coin: UtxoCoin, inputs: number, outputScripts: readonly Uint8Array[]): number {
  // version, input count, output count, lock time
  let base = 4 + compactSize(inputs) + compactSize(outputScripts.length) + 4;
  for (const s of outputScripts) base += 8 + compactSize(s.length) + s.length;
  // an input: outpoint (36), its script's length and script, sequence (4)
  if (coin.script === 'p2pkh') {
    const scriptSig = 1 + SIGNATURE + 1 + PUBKEY;
    return base + inputs * (36 + compactSize(scriptSig) + scriptSig + 4);
  }
  // P2WPKH: an empty script; the signature and key in the witness, a quarter of a byte each, with
  // the segwit marker and flag (2) and each input's item count
  const witness = 2 + inputs * (1 + 1 + SIGNATURE + 1 + PUBKEY);
  const weight = 4 * (base + inputs * (36 + 1 + 4)) + witness;
  return Math.ceil(weight / 4);
}
