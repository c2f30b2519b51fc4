// A Tron token settlement's burnt TRX priced in its coin (the split itself: real-network-fee.test.ts).
import { describe, expect, it } from 'vitest';
import { dec } from '../money/index.ts';
import { burntInToken } from './burnt-fee.ts';

describe('burntInToken', () => {
  it('prices burnt TRX in a token settlement at the rates, rounded up to a base unit; TRX as it is', () => {
    expect(burntInToken('TRX', { token: 'TRX', amount: 1_234n }, {})).toBe(1_234n);
    expect(burntInToken('USDT_TRC20', { token: 'TRX', amount: 3_000_001n }, { TRX: dec('0.25'), USDT_TRC20: dec(1) })).toBe(750_001n);
    expect(burntInToken('USDT_TRC20', { token: 'TRX', amount: 1n }, { USDT_TRC20: dec(1) })).toBeNull();
  });
});
