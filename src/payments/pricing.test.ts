import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec, type Decimal } from '../money/index.ts';
import { TOKENS, TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import { parseMarketData, type MarketData } from '../market/index.ts';
import { amountDuePassedOn, quotePayment, type ConversionRoute, type MerchantPricing, type PriceRequest, type PaymentQuote } from './pricing.ts';
import { EXCHANGE_MARGIN, exchangeInputUsd } from './exchange-minimum.ts';
import { serviceFeeUsd } from './service-fee.ts';

// The figures of test/fixtures/market.json that these examples use.
const MARKET = parseMarketData({
  rates: { BTC: '60000', ETH: '3000', TRX: '0.25' },
  network_fee_usd: { BTC: '2', ETH: '1', TRX: '1' },
  min_usd: { BTC: '5', ETH: '3', TRX: '1' },
  exchange_min_usd: { BTC: '20', ETH: '15', TRX: '10' },
});
const PASSED_ON: MerchantPricing = { feeBps: 100, feesPaidByCustomer: true, hideBelowMinimum: false };
const KEPT: MerchantPricing = { feeBps: 100, feesPaidByCustomer: false, hideBelowMinimum: false };
const HIDDEN: MerchantPricing = { ...PASSED_ON, hideBelowMinimum: true };

const quote = (usd: string, token: TokenSymbol, merchant: MerchantPricing, route: ConversionRoute = 'none', market: MarketData = MARKET) =>
  quotePayment({ usdAmount: dec(usd), token, merchant, market, route });
const ok = (r: ReturnType<typeof quotePayment>): PaymentQuote => {
  if (!r.ok) throw new Error(`refused: ${r.message}`);
  return r.quote;
};
const EXCHANGE_MESSAGE = (token: string, amount: string) =>
  `minimum payment in ${token} is $${amount} right now (it is converted on its way to the merchant, and the exchange takes no less)`;

describe('amount due with fees passed on', () => {
  it('divides price and network fee by what the fee shares leave, rounded up to the cent', () => {
    const q = ok(quote('25', 'ETH', PASSED_ON));
    expect(q.amountDueUsd.toFixed()).toBe('26.27'); // 26 / 0.99 = 26.2626…
    expect(q.usdAmount.toFixed()).toBe('25');
    expect(q.networkFeeUsd.toFixed()).toBe('1');
    expect(q.networkFeeBps).toBeUndefined();
    expect(q.extraUsd).toBeUndefined();
    expect(q.rateLocked.toFixed()).toBe('3000');
    expect(q.chain).toBe('ethereum');
    // 26.27 / 3000 = 0.0087566…, rounded up at 8 decimals, in wei
    expect(q.cryptoAmount).toBe(8_756_670_000_000_000n);
    // 1 / 3000 = 0.000333…, rounded up at 8 decimals
    expect(q.networkFee).toBe(333_340_000_000_000n);
  });

  it('adds the conversion share of the route', () => {
    expect(ok(quote('25', 'ETH', PASSED_ON, 'swap')).amountDueUsd.toFixed()).toBe('26.4'); // 26 / 0.985
    expect(ok(quote('25', 'ETH', PASSED_ON, 'swap')).networkFeeBps).toBe(50);
    expect(ok(quote('25', 'ETH', PASSED_ON, 'platform')).amountDueUsd.toFixed()).toBe('26.67'); // 26 / 0.975 = 26.666…
    expect(ok(quote('25', 'ETH', PASSED_ON, 'platform')).networkFeeBps).toBe(150);
  });

  it('is at least price + network fee + 0.20', () => {
    // 4 / 0.99 = 4.05 is less than 3 + 1 + 0.20
    expect(ok(quote('3', 'ETH', PASSED_ON)).amountDueUsd.toFixed()).toBe('4.2');
  });

  it('at the \$0.20 floor\'s edge: below it price + network fee + 0.20, above it the share (property)', () => {
    // 1%: (base) / 0.99 = base + 0.20 at base 19.80, both giving 20
    expect(amountDuePassedOn(dec('18.8'), dec(1), 100)?.toFixed()).toBe('20');
    expect(amountDuePassedOn(dec('18.79'), dec(1), 100)?.toFixed()).toBe('19.99');
    expect(amountDuePassedOn(dec('18.81'), dec(1), 100)?.toFixed()).toBe('20.02'); // 19.81 / 0.99 = 20.0101…
    fc.assert(fc.property(fc.integer({ min: 1, max: 9_999 }), fc.integer({ min: -100, max: 100 }), (bps, cents) => {
      const keep = dec(10_000 - bps).div(10_000);
      const edge = dec('0.2').mul(keep).div(dec(1).minus(keep)); // base / keep = base + 0.20
      const base = edge.plus(dec(cents).div(100));
      if (base.lte(0)) return;
      const due = amountDuePassedOn(base, dec(0), bps)!;
      const wins = cents <= 0 ? base.plus('0.2') : base.div(keep);
      expect(due.gte(wins)).toBe(true);
      expect(due.minus(wins).lt('0.01')).toBe(true);
    }));
  });

  it('is the price alone when the merchant keeps the fees', () => {
    const q = ok(quote('25', 'ETH', KEPT));
    expect(q.amountDueUsd.toFixed()).toBe('25');
    expect(q.cryptoAmount).toBe(8_333_340_000_000_000n);
  });

  it('has no price when the fee shares take everything', () => {
    expect(amountDuePassedOn(dec(10), dec(1), 9950, 50)).toBeUndefined();
    const r = quote('10', 'ETH', { ...PASSED_ON, feeBps: 9950 }, 'swap');
    expect(r).toMatchObject({ ok: false, reason: 'fees_exceed_price' });
  });
});

describe('minimum payment', () => {
  it('compares min_usd with the merchant price', () => {
    expect(quote('2.99', 'ETH', PASSED_ON)).toEqual({
      ok: false, reason: 'below_minimum', message: 'amount_usd is below the minimum payment in ETH: $3 right now', minimumUsd: dec(3),
    });
    expect(quote('3', 'ETH', PASSED_ON).ok).toBe(true);
    expect(quote('3', 'ETH', KEPT).ok).toBe(true);
  });

  it('asks twice the network fee when the merchant keeps the fees', () => {
    // TRX: min_usd 1, network fee 1
    expect(quote('1.5', 'TRX', PASSED_ON).ok).toBe(true);
    expect(quote('1.99', 'TRX', KEPT)).toMatchObject({ ok: false, reason: 'below_minimum', message: 'amount_usd is below the minimum payment in TRX: $2 right now' });
    expect(quote('2', 'TRX', KEPT).ok).toBe(true);
  });
});

describe('exchange minimum', () => {
  // BTC: 1.1 × 20 + 2 network fee = 24 must remain after the service fee: 24 / 0.99 → 24.25
  it('asks the customer the extra when fees are passed on and not hidden', () => {
    const q = ok(quote('10', 'BTC', PASSED_ON, 'exchange'));
    expect(q.amountDueUsd.toFixed()).toBe('24.25');
    expect(q.extraUsd?.toFixed()).toBe('12.05'); // without it: max(12 / 0.985, 12.20) = 12.20
    expect(q.networkFeeBps).toBe(50);
    expect(q.cryptoAmount).toBe(40_417n); // 24.25 / 60000 = 0.000404166…
  });

  it('adds nothing once the payment reaches the minimum by itself', () => {
    const q = ok(quote('22', 'BTC', PASSED_ON, 'exchange'));
    expect(q.amountDueUsd.toFixed()).toBe('24.37'); // 24 / 0.985
    expect(q.extraUsd).toBeUndefined();
  });

  it('refuses below the lowest sufficient price when hidden', () => {
    expect(quote('21.87', 'BTC', HIDDEN, 'exchange')).toEqual({
      ok: false, reason: 'below_exchange_minimum', message: EXCHANGE_MESSAGE('BTC', '21.88'), minimumUsd: dec('21.88'),
    });
    expect(ok(quote('21.88', 'BTC', HIDDEN, 'exchange')).amountDueUsd.toFixed()).toBe('24.25');
  });

  it('refuses below the minimum when the merchant keeps the fees', () => {
    expect(quote('24.24', 'BTC', KEPT, 'exchange')).toMatchObject({ ok: false, message: EXCHANGE_MESSAGE('BTC', '24.25') });
    expect(ok(quote('24.25', 'BTC', KEPT, 'exchange')).amountDueUsd.toFixed()).toBe('24.25');
  });

  it('formats the minimum without trailing zeros', () => {
    const market = parseMarketData({ exchange_min_usd: { ETH: '100' }, network_fee_usd: { ETH: '0' } }, MARKET);
    // 110 / 0.99 = 111.11…, rounded up → 111.12; kept fees: price = 111.12
    expect(quote('50', 'ETH', KEPT, 'exchange', market)).toMatchObject({ message: EXCHANGE_MESSAGE('ETH', '111.12') });
    const flat = parseMarketData({ exchange_min_usd: { ETH: '100' }, network_fee_usd: { ETH: '0' } }, MARKET);
    expect(quote('50', 'ETH', { ...KEPT, feeBps: 0 }, 'exchange', flat)).toMatchObject({ message: EXCHANGE_MESSAGE('ETH', '110.2') });
  });

  it('does not apply to other routes', () => {
    expect(quote('10', 'BTC', HIDDEN, 'swap').ok).toBe(true);
    expect(ok(quote('10', 'BTC', PASSED_ON, 'platform')).extraUsd).toBeUndefined();
  });
});

// ---- properties ---------------------------------------------------------------------------

const ROUTES: ConversionRoute[] = ['none', 'swap', 'exchange', 'platform'];
const cents = (max: number) => fc.integer({ min: 1, max }).map((n) => dec(n).div(100));
/** A market for one token with arbitrary figures; min_usd zero so every price is considered. */
const marketArb = fc.record({
  rate: fc.integer({ min: 1, max: 10 ** 9 }).map((n) => dec(n).div(10_000)),
  fee: fc.integer({ min: 0, max: 5_000 }).map((n) => dec(n).div(100)),
  exchangeMin: fc.integer({ min: 0, max: 10_000 }).map((n) => dec(n).div(100)),
});
const requestArb = fc.record({
  usd: cents(100_000_000),
  token: fc.constantFrom(...TOKENS),
  feeBps: fc.integer({ min: 0, max: 2000 }),
  feesPaidByCustomer: fc.boolean(),
  hideBelowMinimum: fc.boolean(),
  route: fc.constantFrom(...ROUTES),
  m: marketArb,
});
type Req = { usd: Decimal; token: TokenSymbol; feeBps: number; feesPaidByCustomer: boolean; hideBelowMinimum: boolean; route: ConversionRoute; m: { rate: Decimal; fee: Decimal; exchangeMin: Decimal } };
function toRequest(r: Req, usd: Decimal = r.usd): PriceRequest {
  const s = (d: Decimal) => d.toFixed();
  const market = parseMarketData({
    // a stablecoin is priced at one dollar (MARKET_FILE takes no other rate)
    rates: { [r.token]: TOKEN_DEFS[r.token].stablecoin ? '1' : s(r.m.rate) }, network_fee_usd: { [r.token]: s(r.m.fee) },
    min_usd: { [r.token]: '0' }, exchange_min_usd: { [r.token]: s(r.m.exchangeMin) },
  });
  return { usdAmount: usd, token: r.token, route: r.route, market, merchant: { feeBps: r.feeBps, feesPaidByCustomer: r.feesPaidByCustomer, hideBelowMinimum: r.hideBelowMinimum } };
}
const RUNS = { numRuns: 300 };

describe('pricing properties', () => {
  it('with fees passed on the merchant never gets less than its price', () => {
    fc.assert(fc.property(requestArb, (r) => {
      const req = toRequest({ ...r, feesPaidByCustomer: true, hideBelowMinimum: false });
      const q = ok(quotePayment(req));
      const shares = dec(r.feeBps + (q.networkFeeBps ?? 0)).div(10_000);
      const due = q.amountDueUsd;
      expect(due.decimalPlaces()).toBeLessThanOrEqual(2);
      expect(due.mul(dec(1).minus(shares)).minus(r.m.fee).gte(r.usd)).toBe(true);
      expect(due.gte(r.usd.plus(r.m.fee).plus('0.2'))).toBe(true);
      // the service fee with its $0.20 floor and the network fee leave at least the price
      expect(due.minus(serviceFeeUsd(due, r.feeBps)).minus(r.m.fee).gte(r.usd)).toBe(true);
      if (q.extraUsd === undefined) {
        // rounding adds less than a cent to the formula
        const exact = r.usd.plus(r.m.fee).div(dec(1).minus(shares));
        const floor = r.usd.plus(r.m.fee).plus('0.2');
        expect(due.minus(exact.gte(floor) ? exact : floor).lt('0.01')).toBe(true);
      }
    }), RUNS);
  });

  it('the coin amount covers the dollars due and overshoots by less than one precision step', () => {
    let quoted = 0;
    fc.assert(fc.property(requestArb, (r) => {
      const res = quotePayment(toRequest(r));
      if (!res.ok) return;
      quoted++;
      const q = res.quote;
      const { decimals, precision } = TOKEN_DEFS[r.token];
      const coins = dec(q.cryptoAmount).div(dec(10).pow(decimals));
      expect(coins.mul(q.rateLocked).gte(q.amountDueUsd)).toBe(true);
      expect(coins.minus(q.amountDueUsd.div(q.rateLocked)).lt(dec(10).pow(-precision))).toBe(true);
      const feeCoins = dec(q.networkFee).div(dec(10).pow(decimals));
      expect(feeCoins.mul(q.rateLocked).gte(q.networkFeeUsd)).toBe(true);
      expect(feeCoins.minus(q.networkFeeUsd.div(q.rateLocked)).lt(dec(10).pow(-precision))).toBe(true);
    }), RUNS);
    // most requests are quoted: the property is not checked on a handful of them
    expect(quoted).toBeGreaterThan(RUNS.numRuns / 2);
  });

  it('is monotonic in the price: a larger price is accepted and asks no less', () => {
    let quoted = 0;
    fc.assert(fc.property(requestArb, cents(100_000), (r, more) => {
      const a = quotePayment(toRequest(r));
      const b = quotePayment(toRequest(r, r.usd.plus(more)));
      if (!a.ok) return;
      quoted++;
      expect(b.ok).toBe(true);
      if (!b.ok) return;
      expect(b.quote.amountDueUsd.gte(a.quote.amountDueUsd)).toBe(true);
      expect(b.quote.cryptoAmount >= a.quote.cryptoAmount).toBe(true);
    }), RUNS);
    expect(quoted).toBeGreaterThan(RUNS.numRuns / 2);
  });

  it('an exchanged coin leaves the exchange its minimum with a tenth to spare', () => {
    fc.assert(fc.property(requestArb, (r) => {
      const res = quotePayment(toRequest({ ...r, route: 'exchange' }));
      if (!res.ok && res.reason === 'below_minimum') {
        // min_usd is zero here: only the merchant-kept rule of twice the network fee refuses
        expect(!r.feesPaidByCustomer && r.usd.lt(r.m.fee.mul(2))).toBe(true);
        return;
      }
      if (!res.ok) {
        expect(res.reason).toBe('below_exchange_minimum');
        expect(r.feesPaidByCustomer && !r.hideBelowMinimum).toBe(false);
        // the price the message names is the lowest accepted one
        const min = res.minimumUsd as Decimal;
        expect(quotePayment(toRequest({ ...r, route: 'exchange' }, min)).ok).toBe(true);
        if (min.gt('0.01')) expect(quotePayment(toRequest({ ...r, route: 'exchange' }, min.minus('0.01'))).ok).toBe(false);
        return;
      }
      const left = exchangeInputUsd(res.quote.amountDueUsd, r.m.fee, r.feeBps);
      expect(left.gte(r.m.exchangeMin.mul(EXCHANGE_MARGIN))).toBe(true);
    }), RUNS);
  });
});
