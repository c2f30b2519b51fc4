import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec, unitsToDecimal } from '../money/index.ts';
import { TOKEN_DEFS, TOKENS } from '../tokens/index.ts';
import { conversionFeeUnits, networkFeeUnits, serviceFeeUnits, splitUsd, usdRate } from './fees.ts';

const token = fc.constantFrom(...TOKENS);
const step = (t: (typeof TOKENS)[number]) => 10n ** BigInt(TOKEN_DEFS[t].decimals - TOKEN_DEFS[t].precision);

describe('coin fees', () => {
  it('service fee: max(amount × bps, $0.20 / rate), rounded up at the coin\'s precision (property)', () => {
    fc.assert(fc.property(token, fc.bigInt({ min: 1n, max: 10n ** 24n }), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 1, max: 10_000_000 }), (t, amount, bps, rateCents) => {
      const rate = dec(rateCents).div(100);
      const fee = serviceFeeUnits(t, amount, bps, rate);
      const exact = unitsToDecimal(amount, TOKEN_DEFS[t].decimals).mul(bps).div(10_000);
      const floor = dec('0.2').div(rate);
      const max = exact.gt(floor) ? exact : floor;
      const feeCoin = unitsToDecimal(fee, TOKEN_DEFS[t].decimals);
      expect(feeCoin.gte(max)).toBe(true);
      expect(feeCoin.minus(max).lt(dec(10).pow(-TOKEN_DEFS[t].precision))).toBe(true);
      expect(fee % step(t)).toBe(0n);
      expect(feeCoin.mul(rate).gte('0.2')).toBe(true);
    }));
  });

  it('service fee at the $0.20 minimum\'s edge: one unit below it the minimum, from it the share (property)', () => {
    const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
    fc.assert(fc.property(token, fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 10_000_000 }), (t, bps, rateCents) => {
      const { decimals } = TOKEN_DEFS[t];
      const rate = dec(rateCents).div(100);
      // $0.20 / rate in base units is 20 × 10^decimals / rateCents; the fee is that rounded up at the coin's precision
      const minUnits = ceilDiv(20n * 10n ** BigInt(decimals), BigInt(rateCents) * step(t)) * step(t);
      // the least amount whose share (amount × bps / 10000) reaches $0.20 / rate
      const edge = ceilDiv(20n * 10n ** BigInt(decimals) * 10_000n, BigInt(bps) * BigInt(rateCents));
      if (edge > 1n) expect(serviceFeeUnits(t, edge - 1n, bps, rate)).toBe(minUnits);
      const atEdge = serviceFeeUnits(t, edge, bps, rate);
      expect(atEdge).toBe(ceilDiv(edge * BigInt(bps), 10_000n * step(t)) * step(t));
      expect(atEdge >= minUnits).toBe(true);
    }), { numRuns: 2000 });
    // 1% of USDT: $20 is the edge; a unit over it pays the share, rounded up
    expect(serviceFeeUnits('USDT_TRC20', 19_999_999n, 100, dec(1))).toBe(200_000n);
    expect(serviceFeeUnits('USDT_TRC20', 20_000_000n, 100, dec(1))).toBe(200_000n);
    expect(serviceFeeUnits('USDT_TRC20', 20_000_001n, 100, dec(1))).toBe(200_001n);
  });

  it('examples: 1% of 1 BTC; the $0.20 floor; network fee in coin rounded up', () => {
    expect(serviceFeeUnits('BTC', 100_000_000n, 100, dec(60000))).toBe(1_000_000n);
    expect(serviceFeeUnits('USDT_TRC20', 10_000_000n, 100, dec(1))).toBe(200_000n);
    expect(serviceFeeUnits('ETH', 10n ** 15n, 100, dec(3000))).toBe(6_667n * 10n ** 10n); // 0.2/3000 = 0.0000666… → 0.00006667
    expect(networkFeeUnits('BTC', dec('1.5'), dec(60000))).toBe(2500n);
    expect(networkFeeUnits('ETH', dec('0.8'), dec(3000))).toBe(26_667n * 10n ** 10n);
  });

  it('conversion fee: bps of what is converted, rounded up at precision (property)', () => {
    fc.assert(fc.property(token, fc.bigInt({ min: 0n, max: 10n ** 24n }), fc.constantFrom(50, 150), (t, converted, bps) => {
      const fee = conversionFeeUnits(t, converted, bps);
      expect(fee * 10_000n >= converted * BigInt(bps)).toBe(true);
      expect((fee - step(t)) * 10_000n < converted * BigInt(bps) || fee === 0n).toBe(true);
      expect(fee % step(t)).toBe(0n);
    }));
    expect(conversionFeeUnits('USDT_TRC20', 0n, 150)).toBe(0n);
    expect(conversionFeeUnits('USDT_TRC20', 100_000_000n, 150)).toBe(1_500_000n);
  });

  it('usd_rate: half-up at 8 decimals, exactly 1 for stablecoins', () => {
    expect(usdRate('BTC', dec('10'), 3n).toFixed()).toBe('333333333.33333333');
    expect(usdRate('ETH', dec('0.01'), 3n * 10n ** 18n).toFixed()).toBe('0.00333333');
    expect(usdRate('USDC_BEP20', dec('99.5'), 10n ** 20n).toFixed()).toBe('1');
  });
});

describe('splitUsd', () => {
  const splitArb = fc.record({
    amount: fc.bigInt({ min: 1n, max: 10n ** 12n }), a: fc.double({ min: 0, max: 1, noNaN: true }), b: fc.double({ min: 0, max: 1, noNaN: true }),
    c: fc.double({ min: 0, max: 1, noNaN: true }), noNet: fc.boolean(),
    usdMills: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100_000_000 })),
  }).map(({ amount, a, b, c, noNet, usdMills }) => {
    // three fees cut from the amount in any proportions; whatever is left is the net (may be 0 or 1 unit)
    const service_fee = BigInt(Math.floor(Number(amount) * a));
    const network_fee = BigInt(Math.floor(Number(amount - service_fee) * b));
    const rest = amount - service_fee - network_fee;
    const conversion_fee = noNet ? rest : BigInt(Math.floor(Number(rest) * c));
    const net = amount - service_fee - network_fee - conversion_fee;
    return { split: { amount, service_fee, network_fee, conversion_fee, net }, usd: dec(usdMills).div(1000) };
  });

  it('cents that add up exactly, never negative, nothing on a net of zero units (property)', () => {
    fc.assert(fc.property(splitArb, ({ split, usd }) => {
      const u = splitUsd(usd, split);
      const parts = [u.service_fee_usd, u.network_fee_usd, u.conversion_fee_usd, u.net_usd];
      expect(parts.reduce((s, p) => s.plus(p), dec(0)).eq(u.usd_value)).toBe(true);
      for (const p of parts) { expect(p.gte(0)).toBe(true); expect(p.decimalPlaces()).toBeLessThanOrEqual(2); }
      if (split.net === 0n) expect(u.net_usd.eq(0)).toBe(true);
      if (split.conversion_fee === 0n) expect(u.conversion_fee_usd.eq(0)).toBe(true);
    }), { numRuns: 2000 });
  });

  it('gives the rounding remainder to net_usd, or to a fee when the net is nothing', () => {
    // three equal thirds of $1: 0.33 + 0.33 + 0.33, remainder 0.01 to the net
    const thirds = splitUsd(dec(1), { amount: 3n, service_fee: 1n, network_fee: 1n, conversion_fee: 0n, net: 1n });
    expect([thirds.service_fee_usd, thirds.network_fee_usd, thirds.net_usd].map((d) => d.toFixed())).toEqual(['0.33', '0.33', '0.34']);
    const allFees = splitUsd(dec(1), { amount: 3n, service_fee: 1n, network_fee: 1n, conversion_fee: 1n, net: 0n });
    expect([allFees.service_fee_usd, allFees.network_fee_usd, allFees.conversion_fee_usd, allFees.net_usd].map((d) => d.toFixed())).toEqual(['0.33', '0.33', '0.34', '0']);
    // fees rounding up past the value ($0.005 each → 0.01 each, 0.03 of 0.02): the cent comes back from a fee
    const tiny = splitUsd(dec('0.02'), { amount: 1000n, service_fee: 250n, network_fee: 250n, conversion_fee: 250n, net: 250n });
    expect([tiny.service_fee_usd, tiny.network_fee_usd, tiny.conversion_fee_usd, tiny.net_usd].map((d) => d.toFixed())).toEqual(['0.01', '0.01', '0', '0']);
  });
});
