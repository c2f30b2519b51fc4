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
  it('is $0.20 up to the payment whose share is $0.20, and the share a cent above (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 10_000 }), (bps) => {
      const edge = dec('0.2').mul(BPS).div(bps); // the payment whose share is exactly $0.20
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
