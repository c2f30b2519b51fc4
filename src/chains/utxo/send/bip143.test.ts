// The linear BIP-143 signature hash must be btc-signer's, byte for byte: each preimage hash for every
// input, and whole signed transactions (RFC 6979 signatures are deterministic, so the same hash
// gives the same bytes), also after an outpoint, a sequence or an output changes; a sighash type
// other than ALL is btc-signer's own. And the point of it: an input's hash costs the same however
// many inputs there are (btc-signer's own costs more with every input, n² for a spend).
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { concat } from '../../addresses/encoding.ts';
import { UTXO_COINS } from '../coins.ts';
import { Bip143Transaction } from './bip143.ts';
import { inputsPaying, ownScript } from './spend-fixtures.test-support.ts';

const coin = UTXO_COINS.litecoin;

/** The same unsigned transaction twice: ours and btc-signer's. */
function pair(amounts: bigint[], outputs: Array<{ script: Uint8Array; amount: bigint }>, sequence: number, key: Uint8Array) {
  const made = [new Bip143Transaction({ version: 2, lockTime: 0, allowUnknownOutputs: true }), new Transaction({ version: 2, lockTime: 0, allowUnknownOutputs: true })] as const;
  const inputs = inputsPaying(coin, ownScript(coin, key), amounts);
  for (const tx of made) {
    for (const i of inputs) tx.addInput({ txid: hex.decode(i.txid), index: i.vout, sequence, witnessUtxo: { script: i.script, amount: i.amount } });
    for (const o of outputs) tx.addOutput(o);
  }
  return made;
}

const outputArb = fc.record({
  kind: fc.integer({ min: 0, max: 2 }),
  amount: fc.bigInt({ min: 546n, max: 10_000_000n }),
}).map(({ kind, amount }) => ({
  // P2WPKH, P2WSH, a future witness version's 40-byte program
  script: [concat([0x00, 0x14], crypto.randomBytes(20)), concat([0x00, 0x20], crypto.randomBytes(32)), concat([0x60, 0x28], crypto.randomBytes(40))][kind],
  amount,
}));

describe('Bip143Transaction', () => {
  it('signs P2WPKH inputs byte for byte as btc-signer does', () => {
    fc.assert(fc.property(
      // more than the outputs' most (4 × 0.1 LTC): finalizing checks the inputs pay them
      fc.array(fc.bigInt({ min: 50_000_000n, max: 1_000_000_000n }), { minLength: 1, maxLength: 12 }),
      fc.array(outputArb, { minLength: 1, maxLength: 4 }),
      fc.constantFrom(0xfffffffd, 0xffffffff, 0),
      (amounts, outputs, sequence) => {
        const key = secp256k1.utils.randomSecretKey();
        const [ours, theirs] = pair(amounts, outputs, sequence, key);
        const script = concat(concat([0x76, 0xa9, 0x14], ownScript(coin, key).slice(2)), [0x88, 0xac]);
        for (let idx = 0; idx < amounts.length; idx++) {
          expect(hex.encode(ours.preimageWitnessV0(idx, script, SigHash.ALL, amounts[idx]))).toBe(hex.encode(theirs.preimageWitnessV0(idx, script, SigHash.ALL, amounts[idx])));
        }
        ours.sign(key);
        ours.finalize();
        theirs.sign(key);
        theirs.finalize();
        expect(ours.hex).toBe(theirs.hex);
      }), { numRuns: 30 });
  });

  it('hashes again after an outpoint, a sequence or an output changes', () => {
    const key = secp256k1.utils.randomSecretKey();
    const amounts = [50_000_000n, 70_000_000n];
    const [ours, theirs] = pair(amounts, [{ script: concat([0x00, 0x14], crypto.randomBytes(20)), amount: 100_000_000n }], 0xfffffffd, key);
    const script = concat(concat([0x76, 0xa9, 0x14], ownScript(coin, key).slice(2)), [0x88, 0xac]);
    const same = () => {
      for (const idx of [0, 1]) expect(hex.encode(ours.preimageWitnessV0(idx, script, SigHash.ALL, amounts[idx]))).toBe(hex.encode(theirs.preimageWitnessV0(idx, script, SigHash.ALL, amounts[idx])));
    };
    same();
    for (const tx of [ours, theirs]) tx.updateInput(1, { sequence: 7 });
    same();
    const txid = crypto.randomBytes(32);
    for (const tx of [ours, theirs]) tx.updateInput(0, { txid, index: 3 });
    same();
    const extra = { script: concat([0x00, 0x20], crypto.randomBytes(32)), amount: 1_000_000n };
    for (const tx of [ours, theirs]) tx.addOutput(extra);
    same();
    for (const tx of [ours, theirs]) tx.updateOutput(0, { amount: 99_000_000n });
    same();
    const more = inputsPaying(coin, ownScript(coin, key), [5_000_000n])[0];
    for (const tx of [ours, theirs]) tx.addInput({ txid: hex.decode(more.txid), index: 0, sequence: 1, witnessUtxo: { script: more.script, amount: more.amount } });
    amounts.push(5_000_000n);
    for (const idx of [0, 1, 2]) expect(hex.encode(ours.preimageWitnessV0(idx, script, SigHash.ALL, amounts[idx]))).toBe(hex.encode(theirs.preimageWitnessV0(idx, script, SigHash.ALL, amounts[idx])));
  });

  it('leaves other sighash types to btc-signer', () => {
    const key = secp256k1.utils.randomSecretKey();
    const [ours, theirs] = pair([50_000_000n, 70_000_000n], [{ script: concat([0x00, 0x14], crypto.randomBytes(20)), amount: 100_000_000n }], 0xfffffffd, key);
    const script = concat(concat([0x76, 0xa9, 0x14], ownScript(coin, key).slice(2)), [0x88, 0xac]);
    for (const type of [SigHash.NONE, SigHash.SINGLE, SigHash.ALL_ANYONECANPAY, SigHash.SINGLE_ANYONECANPAY]) {
      for (const idx of [0, 1]) expect(hex.encode(ours.preimageWitnessV0(idx, script, type, 1n))).toBe(hex.encode(theirs.preimageWitnessV0(idx, script, type, 1n)));
    }
  });
});

describe('Bip143Transaction cost', () => {
  /**
   * CPU milliseconds of 1,600 signature hashes of a transaction of n inputs (each input's, as many
   * times over as that takes), the least of five rounds: the same count for every n, so only what
   * one hash costs differs. The transaction-wide hashes, worked out once per transaction, before.
   */
  function hashes(n: number): number {
    const key = secp256k1.utils.randomSecretKey();
    const [tx] = pair(Array.from({ length: n }, () => 1_000_000n), [{ script: concat([0x00, 0x14], crypto.randomBytes(20)), amount: 1_000n }], 0xfffffffd, key);
    const script = concat(concat([0x76, 0xa9, 0x14], ownScript(coin, key).slice(2)), [0x88, 0xac]);
    tx.preimageWitnessV0(0, script, SigHash.ALL, 1_000_000n);
    let least = Infinity;
    for (let round = 0; round < 5; round++) {
      const start = process.cpuUsage();
      for (let k = 0; k < 1600; k++) tx.preimageWitnessV0(k % n, script, SigHash.ALL, 1_000_000n);
      const used = process.cpuUsage(start);
      least = Math.min(least, (used.user + used.system) / 1000);
    }
    return least;
  }

  it('an input\'s hash costs about the same in a spend of 100 inputs and of 1,600: under 6 times (btc-signer\'s own: 16 times)', () => {
    hashes(100);
    const small = hashes(100);
    const large = hashes(1600);
    expect(large / small).toBeLessThan(6);
  }, 120_000);
});
