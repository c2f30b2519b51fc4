// The live market against local stand-ins of the five price APIs, on a clock moved by hand.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { RATE_SOURCE_NAMES } from '../config.ts';
import { ManualClock } from '../platform/clock.ts';
import { TOKENS, type TokenSymbol } from '../tokens/index.ts';
import { FakeExchanges } from '../../test/harness/exchanges.ts';
import { DEFAULT_MARKET } from './defaults.ts';
import { LiveMarket, type LiveMarketOptions } from './live-market.ts';
import { rateSource } from './rate-sources.ts';
import type { NetworkFeeQuoter } from './network-fee-port.ts';

const MAX_AGE_MS = 120_000;

describe('live market', () => {
  let fx: FakeExchanges;
  let clock: ManualClock;
  let logs: { level: number; msg: string; source?: string; coin?: string }[];
  let market: LiveMarket;
  /** Time limits fired by hand: every fetch's signal is one of these. */
  let limits: AbortController[];

  beforeAll(async () => { fx = await FakeExchanges.start(); });
  afterAll(async () => { await fx.close(); });
  beforeEach(() => {
    fx.reset();
    clock = new ManualClock('2026-03-02T10:00:00Z');
    logs = [];
    limits = [];
    market = make();
  });
  afterEach(async () => { await market.stop(); });

  function make(extra: Partial<LiveMarketOptions> = {}): LiveMarket {
    const log = pino({ level: 'debug' }, { write: (s: string) => { logs.push(JSON.parse(s)); } });
    return new LiveMarket({
      sources: RATE_SOURCE_NAMES.map((n) => rateSource(n, fx.url(n))), clock, log, refreshMs: 30_000, maxAgeMs: MAX_AGE_MS,
      fallback: DEFAULT_MARKET,
      timeout: () => { const c = new AbortController(); limits.push(c); return c.signal; },
      ...extra,
    });
  }
  const rate = (t: TokenSymbol) => market.snapshot()[t].rate.toFixed();
  const status = (t: TokenSymbol) => market.snapshot()[t].status;
  const entry = (t: TokenSymbol) => market.report().find((e) => e.token === t)!;
  const warnings = () => logs.filter((l) => l.level === 40);

  it('has no current price for anything before the first answers', () => {
    for (const t of TOKENS) expect(status(t), t).toBe('stale');
    expect(entry('BTC')).toEqual({ token: 'BTC', rate: null, status: 'stale', updated_at: null, sources: [] });
  });

  it('prices every token from the median of the sources after a refresh', async () => {
    await market.refresh();
    for (const t of TOKENS) expect(status(t), t).toBe('ok');
    expect(rate('BTC')).toBe('60000');
    expect(rate('BNB')).toBe('600');
    expect(rate('TRX')).toBe('0.25');
    // stablecoins are priced at exactly one dollar
    expect(rate('USDT_TRC20')).toBe('1');
    expect(entry('BTC')).toEqual({
      token: 'BTC', rate: '60000', status: 'ok', updated_at: '2026-03-02T10:00:00.000Z',
      sources: ['coinbase', 'kraken', 'binance', 'bitstamp', 'okx'].map((name) => ({ name, rate: '60000', fetched_at: '2026-03-02T10:00:00.000Z', used: true })),
    });
    // BNB: only Binance and OKX list it
    expect(entry('BNB').sources.map((s) => s.name)).toEqual(['binance', 'okx']);
    expect(warnings()).toEqual([]);
  });

  it('takes the median, leaves an outlier out and logs it naming the source and the coin', async () => {
    fx.set('coinbase', { prices: { BTC: '61000' } });
    fx.set('bitstamp', { prices: { BTC: '60500' } });
    fx.set('kraken', { prices: { BTC: '70000' } });
    await market.refresh();
    expect(rate('BTC')).toBe('60250');
    expect(entry('BTC').sources.find((s) => s.name === 'kraken')).toMatchObject({ rate: '70000', used: false });
    const w = warnings().filter((l) => l.msg.includes('left out'));
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({ source: 'kraken', coin: 'BTC' });
    expect(w[0].msg).toBe('rate source kraken left out for BTC: 70000 is more than 5% from the median of the fresh sources');
  });

  it('turns Binance and OKX prices in USDT into dollars at USDT\'s own rate', async () => {
    fx.prices.USDT = '0.99';
    await market.refresh();
    // each source's BNB price is 600 / 0.99 USDT; at USDT's $0.99 that is $600 again
    expect(rate('BNB')).toBe('600');
    expect(entry('USDT_ERC20')).toMatchObject({ rate: '0.99', status: 'ok' });
    expect(rate('USDT_ERC20')).toBe('1');
  });

  it('drops a source whose answers have aged past RATE_MAX_AGE_S, and the coin once no source is fresh', async () => {
    await market.refresh();
    for (const n of RATE_SOURCE_NAMES) if (n !== 'kraken') fx.set(n, { behaviour: 'http500' });
    clock.advance(60_000);
    await market.refresh();
    expect(market.sourceHealth().find((s) => s.name === 'coinbase')).toMatchObject({ up: false, lastError: expect.stringContaining('HTTP 500') });
    expect(warnings().filter((l) => l.msg.startsWith('rate source coinbase'))).toHaveLength(1);
    // 121 s after the first answers: only Kraken's (60 s old) count
    clock.advance(61_000);
    expect(entry('BTC').sources.filter((s) => s.used).map((s) => s.name)).toEqual(['kraken']);
    expect(status('BTC')).toBe('ok');
    // BNB was listed by Binance and OKX alone: stale now, without any refresh (the view degrades on time)
    expect(status('BNB')).toBe('stale');
    expect(entry('BNB')).toMatchObject({ rate: '600', status: 'stale', updated_at: '2026-03-02T10:00:00.000Z' });
    clock.advance(60_000);
    expect(status('BTC')).toBe('stale');
    fx.set('kraken', { behaviour: 'http429' });
    await market.refresh();
    expect(warnings().some((l) => l.msg.startsWith('no current price for BTC'))).toBe(true);
    // a rate that comes back puts the coin back
    fx.reset();
    await market.refresh();
    expect(status('BTC')).toBe('ok');
    expect(logs.some((l) => l.level === 30 && l.msg.startsWith('current price again for') && l.msg.includes('BTC'))).toBe(true);
  });

  it('gives up on a source that does not answer in time and prices from the others', async () => {
    fx.set('okx', { behaviour: 'hang' });
    const done = market.refresh();
    const before = fx.requests.okx;
    // the four others have answered, OKX has all eight of its requests open: its time runs out
    const othersUp = () => market.sourceHealth().filter((h) => h.name !== 'okx').every((h) => h.up);
    while (fx.requests.okx - before < 8 || !othersUp()) await new Promise((r) => setImmediate(r));
    for (const l of limits) l.abort(new DOMException('limit', 'TimeoutError'));
    await done;
    expect(market.sourceHealth().find((s) => s.name === 'okx')).toMatchObject({ up: false, lastError: expect.stringContaining('timed out') });
    expect(status('BNB')).toBe('ok');
    expect(entry('BNB').sources.map((s) => s.name)).toEqual(['binance']);
  });

  it('treats malformed answers as no answer', async () => {
    for (const n of RATE_SOURCE_NAMES) if (n !== 'bitstamp') fx.set(n, { behaviour: 'malformed' });
    await market.refresh();
    expect(status('BTC')).toBe('ok');
    expect(entry('BTC').sources.map((s) => s.name)).toEqual(['bitstamp']);
    expect(status('TRX')).toBe('stale');
    expect(warnings().filter((l) => l.msg.includes('malformed answer')).length).toBe(4);
  });

  it('flags a stablecoin more than 2% off its peg, and refuses it beyond 5%', async () => {
    fx.prices.USDC = '0.97';
    await market.refresh();
    expect(status('USDC_ERC20')).toBe('ok');
    expect(warnings().map((l) => l.msg)).toContain('USDC is at $0.97, more than 2% from a dollar');
    fx.prices.USDC = '0.93';
    await market.refresh();
    expect(status('USDC_ERC20')).toBe('off_peg');
    expect(status('USDC_BEP20')).toBe('off_peg');
    expect(rate('USDC_ERC20')).toBe('1');
    expect(entry('USDC_BEP20')).toMatchObject({ rate: '0.93', status: 'off_peg' });
    expect(warnings().map((l) => l.msg)).toContain('USDC is at $0.93, more than 5% from a dollar: its live payments are refused');
    fx.prices.USDC = '1.001';
    await market.refresh();
    expect(status('USDC_ERC20')).toBe('ok');
  });

  it('prices network fees from the chain\'s quotes at the native coin\'s rate, and minimums from them', async () => {
    let answer: (t: TokenSymbol) => bigint | null = (t) => ({ ETH: 420_000_000_000_000n, USDT_ERC20: 2_000_000_000_000_000n, XRP: 12n } as Partial<Record<TokenSymbol, bigint>>)[t] ?? null;
    const quoter: NetworkFeeQuoter = { quoteSweepFee: async (t) => answer(t) };
    await market.stop();
    market = make({ networkFees: quoter });
    await market.refresh();
    const m = market.snapshot();
    expect(m.ETH.networkFeeUsd.toFixed()).toBe('1.26');
    expect(m.ETH.minUsd.toFixed()).toBe('3');
    // 0.002 ETH at $3,000: $6, so a payment must be worth $12
    expect(m.USDT_ERC20.networkFeeUsd.toFixed()).toBe('6');
    expect(m.USDT_ERC20.minUsd.toFixed()).toBe('12');
    expect(m.XRP.networkFeeUsd.toFixed()).toBe('0.01');
    // no quote (null): the built-in figures
    expect(m.BTC.networkFeeUsd.eq(DEFAULT_MARKET.BTC.networkFeeUsd)).toBe(true);
    expect(m.BTC.minUsd.eq(DEFAULT_MARKET.BTC.minUsd)).toBe(true);
    // a quoter that fails or stops answering: the built-in figures once its last quote is stale
    answer = () => { throw new Error('node down'); };
    clock.advance(MAX_AGE_MS + 1);
    await market.refresh();
    expect(market.snapshot().ETH.networkFeeUsd.eq(DEFAULT_MARKET.ETH.networkFeeUsd)).toBe(true);
  });

  it('never converts a fee at a stale native rate', async () => {
    await market.stop();
    market = make({ networkFees: { quoteSweepFee: async () => 1_000_000_000_000_000n } });
    for (const n of RATE_SOURCE_NAMES) fx.set(n, { prices: { ETH: '0' } });
    await market.refresh();
    expect(status('ETH')).toBe('stale');
    expect(market.snapshot().USDT_ERC20.networkFeeUsd.eq(DEFAULT_MARKET.USDT_ERC20.networkFeeUsd)).toBe(true);
    // 0.001 BNB at $600
    expect(market.snapshot().BNB.networkFeeUsd.toFixed()).toBe('0.6');
  });

  it('start refreshes at once in the background; stop abandons what is under way', async () => {
    market.start();
    await market.refresh();
    expect(status('BTC')).toBe('ok');
    fx.set('coinbase', { behaviour: 'hang' });
    clock.advance(30_000);
    const pending = market.refresh();
    await market.stop();
    await pending;
    // stopped: a refresh does nothing and the last view stays
    await market.refresh();
    expect(status('BTC')).toBe('ok');
  });

  it('warns at start when RATE_SOURCES quote only in USDT: no source gives USDT in dollars, so nothing can be priced', async () => {
    const onlyUsdt = 'RATE_SOURCES (binance, okx) quote every coin in USDT and none gives USDT\'s own dollar price: no live coin can be priced, and live payments are refused (503) until RATE_SOURCES names coinbase, kraken or bitstamp as well';
    await market.stop();
    market = make({ sources: (['binance', 'okx'] as const).map((n) => rateSource(n, fx.url(n))) });
    market.start();
    // at start, before any source answers
    expect(warnings().map((l) => l.msg)).toEqual([onlyUsdt]);
    await market.refresh();
    for (const t of TOKENS) expect(status(t), t).toBe('stale');
    // said once, not at every refresh
    clock.advance(30_000);
    await market.refresh();
    expect(warnings().filter((l) => l.msg === onlyUsdt)).toHaveLength(1);
    // one source in dollars is enough: no warning, and the USDT prices count
    await market.stop();
    logs.length = 0;
    market = make({ sources: (['binance', 'kraken'] as const).map((n) => rateSource(n, fx.url(n))) });
    market.start();
    await market.refresh();
    expect(warnings()).toEqual([]);
    expect(status('BNB')).toBe('ok');
  });
});
