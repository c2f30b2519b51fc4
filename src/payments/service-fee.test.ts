// The service fee and what reaches the exchange, by known answers: the pricing properties use both
// as their oracle, so they must be right on their own.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec } from '../money/index.ts';
import { BPS, serviceFeeUsd } from './service-fee.ts';
import { exchangeInputUsd } from './exchange-minimum.ts';

describe('serviceFeeUsd', () => {
  it('is fee_bps of the payment, at least $0.20', () => {
    expect(serviceFeeUsd(dec('100'), 100).toFixed()).toBe('1');
    expect(serviceFeeUsd(dec('20.01'), 100).toFixed()).toBe('0.2001');
    expect(serviceFeeUsd(dec('20'), 100).toFixed()).toBe('0.2');
    expect(serviceFeeUsd(dec('10'), 100).toFixed()).toBe('0.2');
    expect(serviceFeeUsd(dec('1000'), 0).toFixed()).toBe('0.2');
    expect(serviceFeeUsd(dec('1000'), 2000).toFixed()).toBe('200');
  });
});

describe('serviceFeeUsd at the $0.20 minimum', () => {
  // dollar amounts in cents, as payments are priced: the share amount × bps / 10000 is then exact
  it('is $0.20 while the share is at most $0.20, and the share above it (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 100_000_000 }), fc.integer({ min: 1, max: 10_000 }), (cents, bps) => {
      const usd = dec(cents).div(100);
      const share = usd.mul(bps).div(BPS);
      const fee = serviceFeeUsd(usd, bps);
      if (share.lte('0.2')) expect(fee.toFixed()).toBe('0.2');
      else expect(fee.eq(share)).toBe(true);
    }));
  });

  it('is $0.20 at the payment whose share is exactly $0.20 and a cent below it, the share a cent above (property)', () => {
    // the fee rates at which some whole number of cents has a share of exactly $0.20
    const exact = Array.from({ length: 10_000 }, (_, i) => i + 1).filter((bps) => 200_000 % bps === 0);
    fc.assert(fc.property(fc.constantFrom(...exact), (bps) => {
      const edge = dec(200_000 / bps).div(100);
      expect(edge.mul(bps).div(BPS).toFixed()).toBe('0.2');
      expect(serviceFeeUsd(edge, bps).toFixed()).toBe('0.2');
      expect(serviceFeeUsd(edge.minus('0.01'), bps).toFixed()).toBe('0.2');
      const above = edge.plus('0.01');
      expect(serviceFeeUsd(above, bps).eq(above.mul(bps).div(BPS))).toBe(true);
      expect(serviceFeeUsd(above, bps).gt('0.2')).toBe(true);
    }));
  });
});

describe('exchangeInputUsd', () => {
  it('is the payment less the service fee and the network fee', () => {
    expect(exchangeInputUsd(dec('100'), dec('1.5'), 100).toFixed()).toBe('97.5');
    expect(exchangeInputUsd(dec('10'), dec('1'), 100).toFixed()).toBe('8.8');
  });
});
