// Builds and signs one Bitcoin-family transaction with @scure/btc-signer: P2WPKH inputs (Bitcoin,
// Litecoin) carry their previous output, P2PKH inputs (Dogecoin) the whole previous transaction,
// as each signature hash needs. Every input signals replaceability (BIP-125) where the coin's
// fee bumps rely on it; the lock time is 0 and the version 2 (1 on Dogecoin, as its wallets write).
// Signing costs milliseconds per input, so a spend of hundreds of inputs takes seconds of CPU: it
// is signed input by input, giving the event loop its turn whenever a slice of SLICE_MS has passed.
// P2WPKH signature hashes share the transaction-wide BIP-143 hashes (bip143.ts), so an input costs
// the same however many there are; a P2PKH one (Dogecoin) serializes the whole transaction again,
// as the legacy signature hash is defined.
import { OutScript, Transaction } from '@scure/btc-signer';
import { hex } from '@scure/base';
import type { UtxoCoin } from '../coins.ts';
import { Bip143Transaction } from './bip143.ts';
import { isVersionedWitnessProgram } from '../../addresses/encoding.ts';

export interface SpendInput {
  txid: string;
  vout: number;
  amount: bigint;
  /** The output script being spent. */
  script: Uint8Array;
  /** The whole previous transaction (legacy P2PKH inputs sign over it). */
  prevRaw?: Uint8Array;
}

export interface SpendOutput {
  script: Uint8Array;
  amount: bigint;
}

export interface SignedSpend {
  txId: string;
  raw: string;
  vsize: number;
}

const RBF_SEQUENCE = 0xfffffffd;
const FINAL_SEQUENCE = 0xffffffff;

/**
 * How long signing holds the event loop before giving others their turn. Why here rather than on a
 * worker thread (as deposit addresses are derived): a spend is signed inside the database
 * transaction that reserves its inputs, which stays open as long either way; a worker would need
 * the private key and, on Dogecoin, every previous transaction copied to it, a start-up and an inline
 * fallback of its own, for spends that are rare (a payout takes a handful of inputs). Slices by time
 * rather than by a count of inputs, as an input's cost grows with the transaction's size.
 */
const SLICE_MS = 8;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function signSpend(coin: UtxoCoin, inputs: readonly SpendInput[], outputs: readonly SpendOutput[], privateKey: Uint8Array): Promise<SignedSpend> {
  // btc-signer refuses output scripts it has no type for; a future witness version's (BIP-350) is
  // one a payout address may take, so that shape alone is let through, any other unknown still refused
  const allowUnknownOutputs = outputs.some((o) => isFutureWitnessOutput(o.script));
  const tx = new Bip143Transaction({ version: coin.chain === 'dogecoin' ? 1 : 2, lockTime: 0, allowUnknownOutputs });
  if (allowUnknownOutputs) {
    for (const o of outputs) {
      if (!isFutureWitnessOutput(o.script) && OutScript.decode(o.script).type === 'unknown') throw new Error(`unknown output script ${hex.encode(o.script)}`);
    }
  }
  const sequence = coin.replaceable ? RBF_SEQUENCE : FINAL_SEQUENCE;
  for (const o of outputs) tx.addOutput({ script: o.script, amount: o.amount });
  // adding, signing and finalizing an input each take time: all three in slices
  await inSlices(inputs.length, (idx) => {
    const i = inputs[idx];
    tx.addInput({
      txid: hex.decode(i.txid), index: i.vout, sequence,
      ...(coin.script === 'p2wpkh' ? { witnessUtxo: { script: i.script, amount: i.amount } } : { nonWitnessUtxo: i.prevRaw! }),
    });
  });
  // its errors name the input and its script, never the key
  await inSlices(inputs.length, (idx) => { tx.signIdx(privateKey, idx); });
  await inSlices(inputs.length, (idx) => { tx.finalizeIdx(idx); });
  return { txId: tx.id, raw: tx.hex, vsize: tx.vsize };
}

/** `step` for 0 to count - 1, giving the event loop its turn after every SLICE_MS of them. */
async function inSlices(count: number, step: (idx: number) => void): Promise<void> {
  let slice = performance.now();
  for (let idx = 0; idx < count; idx++) {
    if (performance.now() - slice >= SLICE_MS) {
      await yieldToLoop();
      slice = performance.now();
    }
    step(idx);
  }
}

/** OP_1 … OP_16 and one push of 2 to 40 bytes, taproot's OP_1 <32> aside (btc-signer knows that one). */
function isFutureWitnessOutput(script: Uint8Array): boolean {
  const [op, len] = script;
  const taproot = op === 0x51 && len === 32;
  return op >= 0x51 && op <= 0x60 && isVersionedWitnessProgram(op - 0x50, len) && script.length === len + 2 && !taproot;
}

/** The id of a signed transaction's bytes (to ask the node about one it refused to take again). */
export function txIdOf(raw: string): string {
  return Transaction.fromRaw(hex.decode(raw), { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true }).id;
}
