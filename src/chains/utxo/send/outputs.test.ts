// The settlement transaction's arithmetic: inputs = outputs + fee always; the merchant's `net`
// arrives exactly; the fee comes out of the transfers that pay their own; nothing below dust is
// made; and the fee rate respects the floors (property tests, fast-check).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { planOutputs } from './outputs.ts';
import { selectExact, type Unspent } from './coin-select.ts';
import { chooseFeeRate, feeFor } from './fee-rate.ts';
import { UTXO_COINS } from '../coins.ts';

const DUST = 294n;

describe('planOutputs', () => {
  it('pays net exactly, the share less the fee, and spends everything', () => {
    fc.assert(fc.property(fc.bigInt({ min: DUST, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 10n ** 10n }), fc.bigInt({ min: 0n, max: 10n ** 8n }), (net, share, fee) => {
      const plan = planOutputs(net + share, [
        { id: 'a', to: 'merchant', amount: net, paysOwnFee: false },
        { id: 'b', to: 'service', amount: share, paysOwnFee: true },
      ], fee, DUST);
      if (share < fee) {
        expect(plan).toEqual({ ok: false, why: `the network fee of ${fee} base units exceeds the ${share} that pay it`, permanent: false });
        return;
      }
      expect(plan.ok).toBe(true);
      if (!plan.ok) return;
      expect(plan.outputs.find((o) => o.transferId === 'a')!.amount).toBe(net);
      const toService = plan.outputs.find((o) => o.transferId === 'b')?.amount ?? 0n;
      // below dust the share is not made and goes to the fee
      expect(toService).toBe(share - fee >= DUST ? share - fee : 0n);
      expect(plan.outputs.reduce((s, o) => s + o.amount, 0n) + plan.fee).toBe(net + share);
      expect(plan.fee >= fee).toBe(true);
    }), { numRuns: 500 });
  });

  it('refuses inputs that do not match the transfers, and a payee output below dust', () => {
    expect(planOutputs(100_000n, [{ id: 'a', to: 'm', amount: 90_000n, paysOwnFee: false }], 0n, DUST))
      .toEqual({ ok: false, why: 'the transfers total 90000 base units but the deposit outputs spent hold 100000', permanent: false });
    expect(planOutputs(10_100n, [{ id: 'a', to: 'm', amount: 100n, paysOwnFee: false }, { id: 'b', to: 's', amount: 10_000n, paysOwnFee: true }], 500n, DUST))
      .toEqual({ ok: false, why: `100 base units to m is below the dust limit of ${DUST}`, permanent: true });
    // said whatever the fee: a payee's dust output is refused for good, a fee too high for the share only for now
    expect(planOutputs(10_100n, [{ id: 'a', to: 'm', amount: 100n, paysOwnFee: false }, { id: 'b', to: 's', amount: 10_000n, paysOwnFee: true }], 20_000n, DUST))
      .toEqual({ ok: false, why: `100 base units to m is below the dust limit of ${DUST}`, permanent: true });
  });
});

describe('planOutputs at its edges', () => {
  const net = { id: 'a', to: 'merchant', amount: 10_000n, paysOwnFee: false };
  const payer = (id: string, amount: bigint) => ({ id, to: id, amount, paysOwnFee: true });

  it('makes a share left at exactly the dust limit, and takes a share equal to the fee whole', () => {
    // the property above draws amounts at random and almost never lands on these equalities
    expect(planOutputs(10_000n + DUST + 100n, [net, payer('s', DUST + 100n)], 100n, DUST))
      .toEqual({ ok: true, outputs: [{ transferId: 'a', to: 'merchant', amount: 10_000n }, { transferId: 's', to: 's', amount: DUST }], fee: 100n });
    expect(planOutputs(10_100n, [net, payer('s', 100n)], 100n, DUST))
      .toEqual({ ok: true, outputs: [{ transferId: 'a', to: 'merchant', amount: 10_000n }], fee: 100n });
  });

  it('a fee larger than the first transfer paying it is finished by the next one, never left short', () => {
    expect(planOutputs(10_000n + 50n + 5_000n, [net, payer('s', 50n), payer('w', 5_000n)], 120n, DUST))
      .toEqual({ ok: true, outputs: [{ transferId: 'a', to: 'merchant', amount: 10_000n }, { transferId: 'w', to: 'w', amount: 4_930n }], fee: 120n });
  });
});

describe('selectExact', () => {
  const u = (txid: string, vout: number, amount: bigint, height: number): Unspent => ({ txid, vout, amount, height });

  it('takes whole deposits (every output of a transaction) worth exactly the total, oldest first', () => {
    const all = [u('b', 0, 300n, 2), u('a', 1, 100n, 1), u('a', 0, 200n, 1), u('c', 0, 500n, 3)];
    expect(selectExact(all, 300n)!.map((x) => `${x.txid}:${x.vout}`)).toEqual(['a:0', 'a:1']);
    expect(selectExact(all, 600n)!.map((x) => x.txid)).toEqual(['a', 'a', 'b']);
    expect(selectExact(all, 800n)!.map((x) => x.txid)).toEqual(['a', 'a', 'c']); // the first combination that fits
    expect(selectExact(all, 200n)).toBeNull(); // half of a deposit is never taken
    expect(selectExact([], 1n)).toBeNull();
  });

  it('whatever it picks sums to the total', () => {
    fc.assert(fc.property(fc.array(fc.bigInt({ min: 1n, max: 10_000n }), { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 255 }), (amounts, mask) => {
      const all = amounts.map((a, i) => u(`t${i}`, 0, a, i));
      const total = all.filter((_, i) => mask & (1 << i)).reduce((s, x) => s + x.amount, 0n);
      if (total === 0n) return;
      const picked = selectExact(all, total)!;
      expect(picked.reduce((s, x) => s + x.amount, 0n)).toBe(total);
      expect(new Set(picked.map((x) => x.txid)).size).toBe(picked.length);
    }), { numRuns: 300 });
  });
});

describe('fee rate', () => {
  const ltc = UTXO_COINS.litecoin;
  it('uses the estimate above the floors, the fallback without one, and never less than a floor', () => {
    expect(chooseFeeRate(ltc, { estimate: 50_000n, nodeFloors: [1_000n] })).toBe(50_000n);
    expect(chooseFeeRate(ltc, { estimate: null, nodeFloors: [1_000n] })).toBe(ltc.fallbackFeePerKvb);
    expect(chooseFeeRate(ltc, { estimate: 500n, nodeFloors: [] })).toBe(ltc.minFeePerKvb);
    fc.assert(fc.property(fc.option(fc.bigInt({ min: 1n, max: 10n ** 7n })), fc.array(fc.bigInt({ min: 0n, max: 10n ** 7n })), (estimate, floors) => {
      const rate = chooseFeeRate(ltc, { estimate, nodeFloors: floors });
      for (const f of [...floors, ltc.minFeePerKvb]) expect(rate >= f).toBe(true);
      expect(rate >= (estimate ?? ltc.fallbackFeePerKvb)).toBe(true);
    }));
  });

  it('rounds the fee up to a whole base unit', () => {
    expect(feeFor(1_000n, 141)).toBe(141n);
    expect(feeFor(1_001n, 141)).toBe(142n);
    expect(feeFor(0n, 141)).toBe(0n);
  });
});
