// The burnt network fee of a Tron settlement: the service's share (service fee + network fee) keeps
// its sum in coins and dollars, the network fee becomes what was burnt up to all of it, nothing negative.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec } from '../money/index.ts';
import { burntInToken, burntSplit } from './burnt-fee.ts';

describe('burntSplit', () => {
  it('keeps the share exact, takes the burn up to all of it, leaves nothing negative', () => {
    fc.assert(fc.property(
      fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 10n ** 9n }), fc.bigInt({ min: 0n, max: 10n ** 9n }),
      fc.bigInt({ min: 0n, max: 3n * 10n ** 9n }), fc.integer({ min: 0, max: 10_000_000 }),
      (amount, sf, nf, burnt, cents) => {
        fc.pre(sf + nf <= amount);
        const usdValue = dec(cents).div(100);
        const usd = (u: bigint) => usdValue.mul(dec(u)).div(dec(amount)).toDecimalPlaces(2);
        const f = { amount, serviceFee: sf, networkFee: nf, usdValue, serviceFeeUsd: usd(sf), networkFeeUsd: usd(nf) };
        const n = burntSplit(f, burnt);
        expect(n.serviceFee + n.networkFee).toBe(sf + nf);
        expect(n.networkFee).toBe(burnt < sf + nf ? burnt : sf + nf);
        expect(n.serviceFee >= 0n).toBe(true);
        expect(n.serviceFeeUsd.plus(n.networkFeeUsd).eq(f.serviceFeeUsd.plus(f.networkFeeUsd))).toBe(true);
        expect(n.serviceFeeUsd.gte(0) && n.networkFeeUsd.gte(0)).toBe(true);
        expect(n.networkFeeUsd.decimalPlaces()).toBeLessThanOrEqual(2);
      },
    ), { numRuns: 500 });
  });

  it('prices burnt TRX in a token settlement at the rates, rounded up to a base unit', () => {
    expect(burntInToken('TRX', { token: 'TRX', amount: 1_234n }, {})).toBe(1_234n);
    expect(burntInToken('USDT_TRC20', { token: 'TRX', amount: 3_000_001n }, { TRX: dec('0.25'), USDT_TRC20: dec(1) })).toBe(750_001n);
    expect(burntInToken('USDT_TRC20', { token: 'TRX', amount: 1n }, { USDT_TRC20: dec(1) })).toBeNull();
  });
});
