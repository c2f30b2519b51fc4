import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec } from '../money/index.ts';
import { TOKENS, tokenDef } from '../tokens/index.ts';
import { nativeTokenOf } from './assets.ts';
import { minimumUsd, networkFeeUsd } from './network-fees.ts';

describe('network fee of a live token from the chain\'s quote', () => {
  it('converts the native coin\'s base units at its rate, rounding up to the cent', () => {
    // 21,000 gas at 20 gwei = 0.00042 ETH; at $3,000: $1.26
    expect(networkFeeUsd('ETH', 420_000_000_000_000n, dec(3000)).toFixed()).toBe('1.26');
    // a token's sweep is paid in the chain's coin (ETH for USDT_ERC20, TRX for USDT_TRC20)
    expect(networkFeeUsd('USDT_ERC20', 1_000_000_000_000_000n, dec(3000)).toFixed()).toBe('3');
    expect(networkFeeUsd('USDT_TRC20', 3_500_000n, dec('0.25')).toFixed()).toBe('0.88');
    // 141 vbytes at 5 sat/vbyte at $60,000 = $0.423 → $0.43
    expect(networkFeeUsd('BTC', 705n, dec(60000)).toFixed()).toBe('0.43');
    // an XRP fee of 12 drops is a fraction of a cent: one cent
    expect(networkFeeUsd('XRP', 12n, dec('0.6')).toFixed()).toBe('0.01');
    expect(networkFeeUsd('XRP', 0n, dec('0.6')).toFixed()).toBe('0');
  });

  it('knows each chain\'s own coin', () => {
    expect(TOKENS.map((t) => nativeTokenOf(tokenDef(t).chain))).toEqual(['BTC', 'LTC', 'DOGE', 'ETH', 'ETH', 'ETH', 'BNB', 'BNB', 'BNB', 'TRX', 'TRX', 'XRP']);
  });

  it('property: never below the exact cost, less than a cent above it', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 1, max: 10_000_000 }), (units, cents) => {
      const rate = dec(cents).div(100);
      const exact = dec(units).div(dec(10n ** 18n)).mul(rate);
      const fee = networkFeeUsd('ETH', units, rate);
      return fee.gte(exact) && fee.minus(exact).lt('0.01') && fee.decimalPlaces() <= 2;
    }));
  });
});

describe('min_usd of a live token', () => {
  it('is at least twice the network fee, never below the built-in minimum', () => {
    expect(minimumUsd(dec(3), dec('1.26')).toFixed()).toBe('3');
    expect(minimumUsd(dec(3), dec('4.1')).toFixed()).toBe('8.2');
  });

  it('property: ≥ floor, ≥ 2 × fee, and equal to one of them', () => {
    const cents = fc.integer({ min: 0, max: 1_000_000 }).map((n) => dec(n).div(100));
    fc.assert(fc.property(cents, cents, (floor, fee) => {
      const m = minimumUsd(floor, fee);
      return m.gte(floor) && m.gte(fee.mul(2)) && (m.eq(floor) || m.eq(fee.mul(2)));
    }));
  });
});
