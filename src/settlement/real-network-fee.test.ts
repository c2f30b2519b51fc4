// The real network fee recorded on a direct Bitcoin-family settlement: whatever the transaction
// cost (up to what the service's share could pay), net stays exact and the figures add up exactly.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec } from '../money/index.ts';
import { address, input, payment, RATES } from './fixtures.test-support.ts';
import { planSettlement } from './plan.ts';
import { withRealNetworkFee, type FeeFigures } from './real-network-fee.ts';

const coins = fc.constantFrom('BTC' as const, 'LTC' as const, 'DOGE' as const);

describe('withRealNetworkFee', () => {
  it('keeps amount = net + service_fee + network_fee + conversion_fee, in coins and dollars, with network_fee the real fee', () => {
    let checked = 0;
    fc.assert(fc.property(coins, fc.integer({ min: 1, max: 5_000_000 }), fc.integer({ min: 0, max: 2000 }), fc.double({ min: 0, max: 1.2, noNaN: true }), (token, cents, feeBps, f) => {
      const whole = dec(cents).div(100).div(RATES[token]).toFixed(8);
      const plan = planSettlement({ ...input(token, whole), payment: payment({ fee_bps: feeBps }), addresses: [address(token)] });
      if (plan.status !== 'pending') return;
      const before: FeeFigures = { ...plan };
      const pool = plan.service_fee + plan.network_fee;
      const real = BigInt(Math.floor(Number(pool) * f));
      const after = withRealNetworkFee(before, real);
      checked++;
      if (real > pool) {
        expect(after).toBeNull();
        return;
      }
      expect(after).not.toBeNull();
      const a = after!;
      expect(a.network_fee).toBe(real);
      expect(a.net).toBe(plan.net);
      expect(a.conversion_fee).toBe(plan.conversion_fee);
      expect(a.net + a.service_fee + a.network_fee + a.conversion_fee).toBe(a.amount);
      expect(a.service_fee >= 0n).toBe(true);
      expect(a.service_fee_usd.gte(0) && a.network_fee_usd.gte(0)).toBe(true);
      expect(a.service_fee_usd.plus(a.network_fee_usd).plus(plan.conversion_fee_usd).plus(plan.net_usd).eq(plan.usd_value)).toBe(true);
      expect(a.network_fee_usd.decimalPlaces() <= 2 && a.service_fee_usd.decimalPlaces() <= 2).toBe(true);
    }), { numRuns: 500 });
    expect(checked).toBeGreaterThan(250);
  });

  it('the quote stands when the service\'s share could not have paid the fee', () => {
    const f: FeeFigures = { amount: 1000n, service_fee: 20n, network_fee: 30n, conversion_fee: 0n, net: 950n, usd_value: dec(10), service_fee_usd: dec('0.2'), network_fee_usd: dec('0.3') };
    expect(withRealNetworkFee(f, 51n)).toBeNull();
    expect(withRealNetworkFee(f, 50n)).toMatchObject({ service_fee: 0n, network_fee: 50n, service_fee_usd: dec(0), network_fee_usd: dec('0.5') });
    expect(withRealNetworkFee(f, 12n)).toMatchObject({ service_fee: 38n, network_fee: 12n, network_fee_usd: dec('0.12'), service_fee_usd: dec('0.38') });
  });

  it('never gives the network fee more dollars than the two fees had together: no service fee below zero', () => {
    // 4 + 4 units of $1 over 1000 units are $0.004 each, 0.00 apiece; all 8 as the real fee are $0.008, 0.01 alone
    const f: FeeFigures = { amount: 1000n, service_fee: 4n, network_fee: 4n, conversion_fee: 0n, net: 992n, usd_value: dec(1), service_fee_usd: dec(0), network_fee_usd: dec(0) };
    const a = withRealNetworkFee(f, 8n)!;
    expect([a.service_fee, a.network_fee, a.service_fee_usd.toFixed(), a.network_fee_usd.toFixed()]).toEqual([0n, 8n, '0', '0']);
  });
});
