// The service fee and what reaches the exchange, by known answers: the pricing properties use both
// as their oracle, so they must be right on their own.
import { describe, expect, it } from 'vitest';
import { dec } from '../money/index.ts';
import { serviceFeeUsd } from './service-fee.ts';
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

describe('exchangeInputUsd', () => {
  it('is the payment less the service fee and the network fee', () => {
    expect(exchangeInputUsd(dec('100'), dec('1.5'), 100).toFixed()).toBe('97.5');
    expect(exchangeInputUsd(dec('10'), dec('1'), 100).toFixed()).toBe('8.8');
  });
});
