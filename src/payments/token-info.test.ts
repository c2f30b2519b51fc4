import { describe, expect, it } from 'vitest';
import { dec } from '../money/index.ts';
import { TOKENS, type TokenSymbol } from '../tokens/index.ts';
import { DEFAULT_CONFIRMATIONS } from '../config.ts';
import { loadMarketFile } from '../market/index.ts';
import { coinRefusal, feeNote, listTokens, noOptionRefusal, tokenInfo, tokenOptions, type ListingContext } from './token-info.ts';
import { quotePayment, type ConversionRoute, type PriceRefusal } from './pricing.ts';

const MARKET = loadMarketFile(new URL('../../test/fixtures/market.json', import.meta.url).pathname);
const ctx = (over: Partial<ListingContext> = {}): ListingContext => ({
  market: MARKET,
  merchant: { feeBps: 100, feesPaidByCustomer: true, hideBelowMinimum: false },
  routeOf: () => 'none',
  confirmations: DEFAULT_CONFIRMATIONS,
  ...over,
});

describe('fee_note', () => {
  it('says when a deposit is final', () => {
    expect(feeNote(3)).toBe('final after 3 confirmations');
    expect(feeNote(1)).toBe('final after 1 confirmation');
  });
});

describe('TokenInfo', () => {
  it('lists a coin without an amount', () => {
    expect(tokenInfo('BTC', ctx())).toEqual({
      token: 'BTC', chain: 'bitcoin', min_usd: '5', network_fee_usd: '2', fee_note: 'final after 3 confirmations',
    });
    expect(tokenInfo('USDT_TRC20', ctx()).fee_note).toBe('final after 20 confirmations');
  });

  it('carries network_fee_bps only for a converted coin', () => {
    const routes: Partial<Record<TokenSymbol, ConversionRoute>> = { ETH: 'swap', BTC: 'exchange', TRX: 'platform' };
    const c = ctx({ routeOf: (t) => routes[t] ?? 'none' });
    expect(tokenInfo('ETH', c).network_fee_bps).toBe(50);
    expect(tokenInfo('BTC', c).network_fee_bps).toBe(50);
    expect(tokenInfo('TRX', c).network_fee_bps).toBe(150);
    expect('network_fee_bps' in tokenInfo('XRP', c)).toBe(false);
  });

  it('lists as min_usd the least price creation takes: twice the network fee and the exchange minimum when the merchant keeps the fees or hides (spec 1 Fees, 2 TokenInfo)', () => {
    const keeps = { feeBps: 100, feesPaidByCustomer: false, hideBelowMinimum: false };
    // ETH's network fee at $2: the merchant that keeps the fees is refused below $4, not $3
    const dearFee = { ...MARKET, ETH: { ...MARKET.ETH, networkFeeUsd: dec(2) } };
    expect(tokenInfo('ETH', ctx({ market: dearFee, merchant: keeps })).min_usd).toBe('4');
    expect(tokenInfo('ETH', ctx({ market: dearFee })).min_usd).toBe('3');
    // converted across networks: the least price that reaches the exchange minimum
    const exchanged = (t: TokenSymbol): ConversionRoute => (t === 'ETH' ? 'exchange' : 'none');
    expect(tokenInfo('ETH', ctx({ merchant: keeps, routeOf: exchanged })).min_usd).toBe('17.7');
    expect(tokenInfo('ETH', ctx({ merchant: { ...keeps, feesPaidByCustomer: true, hideBelowMinimum: true }, routeOf: exchanged })).min_usd).toBe('16.43');
    // fees passed on, not hidden: the customer is asked the extra, the coin's own minimum stands
    expect(tokenInfo('ETH', ctx({ routeOf: exchanged })).min_usd).toBe('3');
    // each figure is a price creation takes, and a cent less is refused
    for (const [c, min] of [[ctx({ market: dearFee, merchant: keeps }), '4'], [ctx({ merchant: keeps, routeOf: exchanged }), '17.7']] as const) {
      const at = (usd: string) => quotePayment({ usdAmount: dec(usd), token: 'ETH', merchant: c.merchant, market: c.market, route: c.routeOf('ETH') }).ok;
      expect([at(min), at(dec(min).minus('0.01').toFixed())]).toEqual([true, false]);
    }
  });

  it('lists every enabled coin in catalog order', () => {
    expect(listTokens(['XRP', 'BTC', 'ETH'], ctx()).map((t) => t.token)).toEqual(['BTC', 'ETH', 'XRP']);
    expect(listTokens([...TOKENS], ctx())).toHaveLength(12);
    expect(listTokens([...TOKENS], ctx()).every((t) => t.amount_due_usd === undefined)).toBe(true);
  });
});

describe('token_options', () => {
  it('leaves out coins too small for the amount and prices the rest', () => {
    // $4: BTC (min 5), USDT_ERC20 and USDC_ERC20 (min 5) are too small
    const options = tokenOptions(dec(4), [...TOKENS], ctx());
    expect(options.map((o) => o.token)).toEqual(['LTC', 'DOGE', 'ETH', 'BNB', 'USDT_BEP20', 'USDC_BEP20', 'TRX', 'USDT_TRC20', 'XRP']);
    const eth = options.find((o) => o.token === 'ETH');
    expect(eth?.amount_due_usd).toBe('5.2'); // max(5 / 0.99, 4 + 1 + 0.20)
  });

  it('offers only enabled coins', () => {
    expect(tokenOptions(dec(100), ['BTC'], ctx()).map((o) => o.token)).toEqual(['BTC']);
  });

  it('has no amount_due_usd when the merchant keeps the fees', () => {
    const options = tokenOptions(dec(100), ['BTC', 'ETH'], ctx({ merchant: { feeBps: 100, feesPaidByCustomer: false, hideBelowMinimum: false } }));
    expect(options).toHaveLength(2);
    expect(options.every((o) => !('amount_due_usd' in o))).toBe(true);
  });

  it('offers an exchanged coin with the extra included, or hides it below the minimum', () => {
    const c = ctx({ routeOf: (t) => (t === 'BTC' ? 'exchange' : 'none') });
    expect(tokenOptions(dec(10), ['BTC'], c)).toEqual([{
      token: 'BTC', chain: 'bitcoin', min_usd: '5', network_fee_usd: '2', network_fee_bps: 50,
      fee_note: 'final after 3 confirmations', amount_due_usd: '24.25',
    }]);
    const hidden = { ...c, merchant: { ...c.merchant, hideBelowMinimum: true } };
    expect(tokenOptions(dec(10), ['BTC'], hidden)).toEqual([]);
    expect(tokenOptions(dec('21.88'), ['BTC'], hidden)).toHaveLength(1);
  });

  it('leaves out a live coin with no current price, from listings and options alike', () => {
    const unpriced = { ...MARKET, BTC: { ...MARKET.BTC, status: 'stale' as const }, USDT_ERC20: { ...MARKET.USDT_ERC20, status: 'off_peg' as const } };
    const c = ctx({ market: unpriced });
    const listed = listTokens([...TOKENS], c).map((i) => i.token);
    expect(listed).toEqual(TOKENS.filter((t) => t !== 'BTC' && t !== 'USDT_ERC20'));
    expect(tokenOptions(dec(100), [...TOKENS], c).map((i) => i.token)).toEqual(listed);
  });

  it('is what the amount_usd filter of the listing gives', () => {
    expect(listTokens([...TOKENS], ctx(), dec(4))).toEqual(tokenOptions(dec(4), [...TOKENS], ctx()));
  });
});

describe('why a payment with no coin has no option', () => {
  const keeps = { feeBps: 100, feesPaidByCustomer: false, hideBelowMinimum: false };
  const exchanged = (...tokens: TokenSymbol[]) => (t: TokenSymbol): ConversionRoute => (tokens.includes(t) ? 'exchange' : 'none');
  const exchangeMessage = (token: string, usd: string) =>
    `minimum payment in ${token} is $${usd} right now (it is converted on its way to the merchant, and the exchange takes no less)`;

  it('names the coin that takes the lowest price, its exchange minimum included', () => {
    // $4: ETH's own minimum ($3) is passed but its exchange's is $17.7 (15 × 1.1 + 1 = 17.5, + $0.20);
    // BTC is not converted and takes $5 (its minimum, above twice its $2 fee): BTC is named, not ETH
    const c = ctx({ merchant: keeps, routeOf: exchanged('ETH') });
    expect(tokenOptions(dec(4), ['BTC', 'ETH'], c)).toEqual([]);
    expect(noOptionRefusal(dec(4), ['ETH', 'BTC'], c)?.message).toBe('amount_usd is below the minimum payment in BTC: $5 right now');
    expect(noOptionRefusal(dec(4), ['ETH'], c)?.message).toBe(exchangeMessage('ETH', '17.7'));
    // below every coin's own minimum: the price ETH takes is still its exchange's
    expect(noOptionRefusal(dec(1), ['ETH'], c)?.message).toBe(exchangeMessage('ETH', '17.7'));
    // both converted: ETH's $17.7 against BTC's (20 × 1.1 + 2 = 24, / 0.99 rounded up)
    const both = ctx({ merchant: keeps, routeOf: exchanged('ETH', 'BTC') });
    expect(noOptionRefusal(dec(1), ['BTC', 'ETH'], both)?.message).toBe(exchangeMessage('ETH', '17.7'));
    expect(noOptionRefusal(dec(1), ['BTC'], both)?.message).toBe(exchangeMessage('BTC', '24.25'));
  });

  it('names the first coin in catalog order on a tie, and undefined when a coin takes the amount', () => {
    // USDT_ERC20 and BTC both take $5 from the merchant that keeps the fees
    expect(noOptionRefusal(dec(4), ['USDT_ERC20', 'BTC'], ctx({ merchant: keeps }))?.message).toBe('amount_usd is below the minimum payment in BTC: $5 right now');
    expect(noOptionRefusal(dec(5), ['USDT_ERC20', 'BTC'], ctx({ merchant: keeps }))).toBeUndefined();
  });

  it('gives the first coin\'s refusal when no price will do, and nothing when no coin is priced', () => {
    const all = ctx({ merchant: { feeBps: 10_000, feesPaidByCustomer: true, hideBelowMinimum: false } });
    expect(noOptionRefusal(dec(100), ['ETH', 'BTC'], all)?.message).toBe('the fees of a payment in BTC leave nothing for the merchant');
    const stale = ctx({ market: { ...MARKET, BTC: { ...MARKET.BTC, status: 'stale' as const } } });
    expect(noOptionRefusal(dec(1), ['BTC'], stale)).toBeUndefined();
  });
});

describe('why a payment in a coin named is refused', () => {
  const keeps = { feeBps: 100, feesPaidByCustomer: false, hideBelowMinimum: false };
  const exchanged = (t: TokenSymbol): ConversionRoute => (t === 'ETH' ? 'exchange' : 'none');
  const refusalOf = (usd: string, token: TokenSymbol, c: ListingContext): string => {
    const at = quotePayment({ usdAmount: dec(usd), token, merchant: c.merchant, market: c.market, route: c.routeOf(token) });
    expect(at.ok).toBe(false);
    return coinRefusal(at as PriceRefusal, token, c).message;
  };
  const taken = (usd: string, token: TokenSymbol, c: ListingContext): boolean =>
    quotePayment({ usdAmount: dec(usd), token, merchant: c.merchant, market: c.market, route: c.routeOf(token) }).ok;

  it('names the exchange minimum when the coin\'s own ($3) would be refused in turn, and that price is taken', () => {
    const c = ctx({ merchant: keeps, routeOf: exchanged });
    const message = 'minimum payment in ETH is $17.7 right now (it is converted on its way to the merchant, and the exchange takes no less)';
    expect([refusalOf('1', 'ETH', c), refusalOf('3', 'ETH', c)]).toEqual([message, message]);
    expect([taken('3', 'ETH', c), taken('17.69', 'ETH', c), taken('17.7', 'ETH', c)]).toEqual([false, false, true]);
    // passed on but hidden: the least price whose amount due reaches the same $17.7
    const hides = ctx({ merchant: { feeBps: 100, feesPaidByCustomer: true, hideBelowMinimum: true }, routeOf: exchanged });
    expect(refusalOf('1', 'ETH', hides)).toBe('minimum payment in ETH is $16.43 right now (it is converted on its way to the merchant, and the exchange takes no less)');
    expect([taken('16.42', 'ETH', hides), taken('16.43', 'ETH', hides)]).toEqual([false, true]);
  });

  it('names the coin\'s own minimum when that price is taken', () => {
    expect(refusalOf('1', 'ETH', ctx({ merchant: keeps }))).toBe('amount_usd is below the minimum payment in ETH: $3 right now');
    expect(taken('3', 'ETH', ctx({ merchant: keeps }))).toBe(true);
    // passed on and not hidden: $3 is taken, the customer asked the extra
    expect(refusalOf('1', 'ETH', ctx({ routeOf: exchanged }))).toBe('amount_usd is below the minimum payment in ETH: $3 right now');
    expect(taken('3', 'ETH', ctx({ routeOf: exchanged }))).toBe(true);
  });

  it('says the fees leave nothing rather than name a price refused for it', () => {
    // fee_bps 100%: below ETH's own $3, and at $3 the exchange's floor has no price
    const c = ctx({ merchant: { ...keeps, feeBps: 10_000 }, routeOf: exchanged });
    expect(refusalOf('1', 'ETH', c)).toBe('the fees of a payment in ETH leave nothing for the merchant');
    expect(noOptionRefusal(dec(1), ['ETH'], c)?.message).toBe('the fees of a payment in ETH leave nothing for the merchant');
  });
});
