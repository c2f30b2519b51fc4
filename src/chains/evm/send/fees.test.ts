// Fee fields: EIP-1559 or legacy from what the node reports, the most a transaction may cost, and
// a replacement's bump (every field at least 25% over the last, never below today's price).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BUMP_PERCENT, bumpFee, currentPrice, feeFields, feeFor, maxPrice, parseFeeFields, type EvmFee } from './fees.ts';

const gwei = (n: number) => BigInt(n) * 10n ** 9n;

describe('EVM fees', () => {
  it('EIP-1559 where blocks carry a base fee: max fee twice the base fee plus the tip; legacy otherwise', () => {
    expect(feeFor({ baseFee: gwei(10), priorityFee: gwei(2), gasPrice: gwei(13) })).toEqual({ type: 'eip1559', maxFeePerGas: gwei(22), maxPriorityFeePerGas: gwei(2) });
    expect(feeFor({ baseFee: null, priorityFee: 0n, gasPrice: gwei(5) })).toEqual({ type: 'legacy', gasPrice: gwei(5) });
    expect(currentPrice({ baseFee: gwei(10), priorityFee: gwei(2), gasPrice: gwei(13) })).toBe(gwei(12));
    expect(currentPrice({ baseFee: null, priorityFee: 0n, gasPrice: gwei(5) })).toBe(gwei(5));
  });

  it('stores and reads back the fee fields as decimal strings', () => {
    const f: EvmFee = { type: 'eip1559', maxFeePerGas: gwei(3), maxPriorityFeePerGas: gwei(1) };
    expect(feeFields(f, 21_000n)).toEqual({ type: 'eip1559', gas: '21000', maxFeePerGas: '3000000000', maxPriorityFeePerGas: '1000000000' });
    expect(parseFeeFields(feeFields(f, 21_000n))).toEqual({ fee: f, gas: 21_000n });
    const legacy: EvmFee = { type: 'legacy', gasPrice: 7n };
    expect(parseFeeFields(feeFields(legacy, 65_000n))).toEqual({ fee: legacy, gas: 65_000n });
  });

  it('a bump raises every field by at least 25% (rounded up) and to at least today\'s fee (property)', () => {
    const price = fc.bigInt({ min: 1n, max: 10n ** 13n });
    fc.assert(fc.property(price, price, price, price, (lastMax, lastTip, todayBase, todayTip) => {
      const tip = lastTip > lastMax ? lastMax : lastTip;
      const last: EvmFee = { type: 'eip1559', maxFeePerGas: lastMax, maxPriorityFeePerGas: tip };
      const today = feeFor({ baseFee: todayBase, priorityFee: todayTip, gasPrice: todayBase + todayTip });
      const b = bumpFee(last, today);
      if (b.type !== 'eip1559') throw new Error('type changed');
      expect(b.maxFeePerGas * 100n >= lastMax * BUMP_PERCENT).toBe(true);
      expect(b.maxPriorityFeePerGas * 100n >= tip * BUMP_PERCENT).toBe(true);
      expect(b.maxFeePerGas >= maxPrice(today)).toBe(true);
      expect(b.maxPriorityFeePerGas >= todayTip).toBe(true);
      // a node refuses a tip above the max fee
      expect(b.maxFeePerGas >= b.maxPriorityFeePerGas).toBe(true);
    }));
    fc.assert(fc.property(price, price, (last, today) => {
      const b = bumpFee({ type: 'legacy', gasPrice: last }, { type: 'legacy', gasPrice: today });
      expect(maxPrice(b) * 100n >= last * BUMP_PERCENT && maxPrice(b) >= today).toBe(true);
    }));
    expect(bumpFee({ type: 'legacy', gasPrice: 3n }, { type: 'legacy', gasPrice: 1n })).toEqual({ type: 'legacy', gasPrice: 4n });
  });
});
