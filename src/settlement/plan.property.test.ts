// Properties every settlement plan keeps, whatever the coin, mode, addresses and market.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec, unitsToDecimal } from '../money/index.ts';
import { TOKEN_DEFS, TOKENS, type TokenSymbol } from '../tokens/index.ts';
import { address, at, market, RATES, T0 } from './fixtures.test-support.ts';
import { planSettlement, type PlanDeposit, type PlanInput, type SettlementPlan } from './plan.ts';
import { planPaymentSettlements } from './group.ts';
import { sumByToken } from './ledger.ts';
import type { MarketQuotes, PayoutAddressInput } from './types.ts';

const token = fc.constantFrom(...TOKENS);

/** A deposit worth `cents` at the sample rate, in whole base units. */
const depositOf = (t: TokenSymbol, cents: number, i: number): PlanDeposit => {
  const { decimals } = TOKEN_DEFS[t];
  const units = BigInt(dec(cents).div(100).div(RATES[t]).mul(dec(10).pow(decimals)).toFixed(0, 1)) || 1n;
  return { tx_id: `tx_${i}`, token: t, amount: units, usd_value: unitsToDecimal(units, decimals).mul(RATES[t]), final_at: at(-i) };
};

const addressArb: fc.Arbitrary<PayoutAddressInput> = fc.record({
  token, age: fc.integer({ min: 0, max: 500 }), activeIn: fc.integer({ min: -100, max: 100 }), isDefault: fc.boolean(),
}).map(({ token: t, age, activeIn, isDefault }) => address(t, { created_at: at(-age), active_at: at(activeIn - age > 0 ? activeIn : -age), default: isDefault }));

const marketArb: fc.Arbitrary<MarketQuotes> = fc.record({
  quotePct: fc.option(fc.integer({ min: -5, max: 5 })), exchangeUp: fc.boolean(),
}).map(({ quotePct, exchangeUp }) => market({
  exchange: { available: exchangeUp },
  swap_quotes: quotePct === null ? [] : [['ETH', 'USDT_ERC20'], ['TRX', 'USDT_TRC20'], ['BNB', 'USDC_BEP20'], ['USDC_ERC20', 'USDT_ERC20']].map(([from, to]) => ({
    from: from as TokenSymbol, to: to as TokenSymbol, price: dec(RATES[from as TokenSymbol]).div(RATES[to as TokenSymbol]).mul(100 + quotePct).div(100),
  })),
}));

const inputArb = (coins: fc.Arbitrary<TokenSymbol[]>): fc.Arbitrary<PlanInput> => fc.record({
  coins, cents: fc.array(fc.oneof(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 1, max: 50_000_000 })), { minLength: 1, maxLength: 6 }),
  feeBps: fc.integer({ min: 0, max: 2000 }), livemode: fc.boolean(),
  settlement: fc.constantFrom('direct', 'direct', 'custodial', 'scheduled' as const),
  convertInto: fc.oneof(fc.constantFrom('cheapest' as const, 'order' as const), token),
  addresses: fc.array(addressArb, { maxLength: 6 }), market: marketArb, lockedPct: fc.integer({ min: 90, max: 110 }),
  balance: fc.bigInt({ min: 0n, max: 50_000_000n }),
}).map((r) => ({
  payment: {
    id: 'pay_p', livemode: r.livemode, token: r.coins[0], rate_locked: dec(RATES[r.coins[0]]).mul(r.lockedPct).div(100),
    fee_bps: r.feeBps, settlement: r.settlement, convert_into: r.convertInto,
  },
  deposits: r.cents.map((c, i) => depositOf(r.coins[i % r.coins.length], c, i)),
  addresses: r.addresses, market: r.market, now: T0, balance_available: r.balance,
}));

const oneCoin = inputArb(token.map((t) => [t]));
const RUNS = { numRuns: 400 };

function rateUsed(input: PlanInput, plan: SettlementPlan) {
  return input.payment.token === plan.token && input.payment.rate_locked ? input.payment.rate_locked : dec(RATES[plan.token]);
}

describe('settlement plan properties', () => {
  it('creates or loses no base unit: amount = service_fee + network_fee + conversion_fee + net', () => {
    fc.assert(fc.property(oneCoin, (input) => {
      const p = planSettlement(input);
      expect(p.amount).toBe(input.deposits.reduce((s, d) => s + d.amount, 0n));
      for (const v of [p.service_fee, p.network_fee, p.conversion_fee, p.net]) expect(v >= 0n).toBe(true);
      expect(p.service_fee + p.network_fee + p.conversion_fee + p.net).toBe(p.amount);
      if (p.conversion && p.conversion.status !== 'skipped') expect(p.conversion.amount_in).toBe(p.net);
    }), RUNS);
  });

  it('dollar figures are cents, never negative, and add up exactly to usd_value', () => {
    fc.assert(fc.property(oneCoin, (input) => {
      const p = planSettlement(input);
      const figures = [p.service_fee_usd, p.network_fee_usd, p.conversion_fee_usd, p.net_usd];
      for (const f of [p.usd_value, ...figures]) {
        expect(f.decimalPlaces()).toBeLessThanOrEqual(2);
        expect(f.gte(0)).toBe(true);
      }
      expect(figures.reduce((s, f) => s.plus(f), dec(0)).eq(p.usd_value)).toBe(true);
      if (p.net === 0n) expect(p.net_usd.eq(0)).toBe(true);
    }), RUNS);
  });

  it('a live direct plan\'s transfers move the whole deposit: the merchant\'s net (or what is converted for it) and the service\'s share', () => {
    let checked = 0;
    let converted = 0;
    fc.assert(fc.property(oneCoin, (input) => {
      const p = planSettlement(input);
      if (p.transfers.length === 0) return;
      checked++;
      const [toMerchant, ...rest] = p.transfers;
      expect(toMerchant.purpose).toBe('settlement');
      if (p.conversion?.status === 'pending') {
        converted++;
        expect(p.conversion.amount_in).toBe(p.net);
        expect(toMerchant).toMatchObject({ token: p.conversion.to, amount: p.conversion.amount_out });
      } else {
        expect(toMerchant).toMatchObject({ token: p.token, amount: p.net });
      }
      // rule 7: on XRP the service's share stays on the shared address
      expect(rest).toEqual(p.token === 'XRP' ? [] : [{ purpose: 'service_fee', token: p.token, amount: p.amount - p.net }]);
    }), RUNS);
    expect(checked).toBeGreaterThan(RUNS.numRuns / 10);
    expect(converted).toBeGreaterThan(0);
  });

  it('usd_rate has at most 8 decimals, is usd_value / amount half-up, and exactly 1 for stablecoins', () => {
    fc.assert(fc.property(oneCoin, (input) => {
      const p = planSettlement(input);
      expect(p.usd_rate.decimalPlaces()).toBeLessThanOrEqual(8);
      if (TOKEN_DEFS[p.token].stablecoin) expect(p.usd_rate.toFixed()).toBe('1');
      else expect(p.usd_rate.minus(p.usd_value.div(unitsToDecimal(p.amount, TOKEN_DEFS[p.token].decimals))).abs().lte('0.000000005')).toBe(true);
    }), RUNS);
  });

  it('the service fee is worth at least $0.20 at the rate used, unless the deposit is held', () => {
    fc.assert(fc.property(oneCoin, (input) => {
      const p = planSettlement(input);
      if (p.status === 'held') return;
      expect(unitsToDecimal(p.service_fee, TOKEN_DEFS[p.token].decimals).mul(rateUsed(input, p)).gte('0.2')).toBe(true);
    }), RUNS);
  });

  it('the ledger records every move: per token, credits less debits equal what stays in the balance', () => {
    fc.assert(fc.property(oneCoin, (input) => {
      const p = planSettlement(input);
      const stays = new Map(p.balance_credit.filter((c) => c.amount !== 0n).map((c) => [c.token, c.amount]));
      if (p.awaits_address) {
        expect(p.ledger).toEqual([]);
        expect(stays.size).toBe(0);
        return;
      }
      expect(sumByToken(p.ledger)).toEqual(stays);
      if (p.mode === 'direct' || p.status === 'held') expect(stays.size).toBe(0);
      // the entries in the settled coin are the split itself
      const of = (type: string) => p.ledger.filter((e) => e.type === type && e.token === p.token).reduce((s, e) => s + e.amount, 0n);
      expect([of('payment_credit'), -of('fee'), -of('network_fee'), -of('conversion_fee')]).toEqual([p.amount, p.service_fee, p.network_fee, p.conversion_fee]);
      // dollars balance the same way: money that left for a wallet leaves no dollar behind
      const usdSum = p.ledger.reduce((s, e) => s.plus(e.usd_amount), dec(0));
      expect(usdSum.eq(stays.size ? p.net_usd : 0)).toBe(true);
    }), RUNS);
  });

  it('test payments are never converted', () => {
    fc.assert(fc.property(oneCoin, (input) => {
      const p = planSettlement({ ...input, payment: { ...input.payment, livemode: false } });
      expect(p.conversion).toBeUndefined();
      expect(p.conversion_fee).toBe(0n);
      expect(p.status === 'completed' || p.status === 'held').toBe(true);
      expect(p.transfers).toEqual([]);
    }), RUNS);
  });

  it('a payment paid in parts gets one plan per coin, each deposit in exactly one plan', () => {
    const coins = fc.uniqueArray(token, { minLength: 1, maxLength: 4 });
    fc.assert(fc.property(inputArb(coins), (input) => {
      const plans = planPaymentSettlements(input);
      const distinct = new Set(input.deposits.map((d) => d.token));
      expect(plans.map((p) => p.token).sort()).toEqual([...distinct].sort());
      const txs = plans.flatMap((p) => p.deposit_txs ?? [p.deposit_tx]).sort();
      expect(txs).toEqual(input.deposits.map((d) => d.tx_id).sort());
      for (const p of plans) {
        expect(p.amount).toBe(input.deposits.filter((d) => d.token === p.token).reduce((s, d) => s + d.amount, 0n));
      }
    }), { numRuns: 200 });
  });
});
