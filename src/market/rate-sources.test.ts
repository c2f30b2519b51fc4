import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RATE_SOURCE_NAMES, type RateSourceName } from '../config.ts';
import { FakeExchanges } from '../../test/harness/exchanges.ts';
import { rateSource, type SourceAnswer } from './rate-sources.ts';
import { httpGetJson } from './source-http.ts';

const plainPrices = (a: SourceAnswer) => Object.fromEntries(a.prices.map((p) => [p.asset, `${p.price.toFixed()} ${p.quote}`]));

/** Resolves once `cond` holds, checking after each turn of the event loop (no timer involved). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setImmediate(r));
}

describe('rate sources against local stand-ins of their APIs', () => {
  let fx: FakeExchanges;
  beforeAll(async () => { fx = await FakeExchanges.start(); });
  afterAll(async () => { await fx.close(); });
  beforeEach(() => { fx.reset(); fx.prices.USDT = '0.998'; });

  const ask = (name: RateSourceName, signal = new AbortController().signal) => rateSource(name, fx.url(name)).fetch(httpGetJson(signal));

  it('each source gives the assets it lists, in its own quote currency', async () => {
    expect(plainPrices(await ask('coinbase'))).toEqual({
      BTC: '60000 USD', LTC: '80 USD', DOGE: '0.15 USD', ETH: '3000 USD', XRP: '0.6 USD', USDT: '0.998 USD', USDC: '1 USD',
    });
    expect(plainPrices(await ask('kraken'))).toEqual({
      BTC: '60000 USD', LTC: '80 USD', DOGE: '0.15 USD', ETH: '3000 USD', XRP: '0.6 USD', TRX: '0.25 USD', USDT: '0.998 USD', USDC: '1 USD',
    });
    expect(plainPrices(await ask('bitstamp'))).toEqual({
      BTC: '60000 USD', LTC: '80 USD', ETH: '3000 USD', XRP: '0.6 USD', USDT: '0.998 USD', USDC: '1 USD',
    });
    // Binance and OKX have no dollar pairs: prices in USDT (the dollar price / 0.998 here)
    for (const name of ['binance', 'okx'] as const) {
      expect(plainPrices(await ask(name))).toEqual({
        BTC: '60120.24048096 USDT', LTC: '80.16032064 USDT', DOGE: '0.1503006 USDT', ETH: '3006.01202405 USDT',
        BNB: '601.20240481 USDT', TRX: '0.250501 USDT', XRP: '0.6012024 USDT', USDC: '1.00200401 USDT',
      });
    }
    for (const name of RATE_SOURCE_NAMES) expect((await ask(name)).errors, name).toEqual([]);
  });

  it('asks Kraken and Binance once for every pair, the others once per pair', async () => {
    for (const name of RATE_SOURCE_NAMES) await ask(name);
    expect(fx.requests.kraken).toBeGreaterThanOrEqual(1);
    const before = { ...fx.requests };
    await ask('kraken');
    await ask('binance');
    await ask('okx');
    expect(fx.requests.kraken - before.kraken).toBe(1);
    expect(fx.requests.binance - before.binance).toBe(1);
    expect(fx.requests.okx - before.okx).toBe(8);
  });

  it.each([
    ['http500', 'HTTP 500'],
    ['http429', 'HTTP 429'],
    ['not_json', 'answer is not JSON'],
    ['malformed', 'malformed answer'],
  ] as const)('a source answering %s gives no price and says why', async (behaviour, why) => {
    for (const name of RATE_SOURCE_NAMES) {
      fx.set(name, { behaviour });
      const a = await ask(name);
      expect(a.prices, name).toEqual([]);
      expect(a.errors.length, name).toBeGreaterThan(0);
      for (const e of a.errors) expect(e, name).toContain(why);
    }
  });

  it('a source that hangs gives up when its time limit fires', async () => {
    fx.set('kraken', { behaviour: 'hang' });
    const limit = new AbortController();
    const before = fx.requests.kraken;
    const answer = ask('kraken', limit.signal);
    await until(() => fx.requests.kraken > before);
    limit.abort(new DOMException('limit', 'TimeoutError'));
    expect(await answer).toEqual({ prices: [], errors: ['timed out'] });
  });

  it('an unreachable source says so', async () => {
    const a = await rateSource('coinbase', 'http://127.0.0.1:1').fetch(httpGetJson(new AbortController().signal));
    expect(a.prices).toEqual([]);
    expect(a.errors[0]).toMatch(/^BTC: unreachable/);
  });

  it('one bad pair leaves the others', async () => {
    const get = async (url: string) => (url.includes('ETH') ? { data: { amount: '-1', currency: 'USD' } } : url.includes('BTC') ? { data: { amount: '1e5', currency: 'USD' } } : { data: { amount: '2.5', currency: 'USD' } });
    const a = await rateSource('coinbase').fetch(get);
    expect(a.prices.map((p) => p.asset).sort()).toEqual(['DOGE', 'LTC', 'USDC', 'USDT', 'XRP']);
    expect(a.errors.sort()).toEqual(['BTC: malformed answer: price "1e5"', 'ETH: malformed answer: price "-1"']);
  });

  it('reads the error field of Kraken and OKX, and a Coinbase price in another currency is refused', async () => {
    const kraken = await rateSource('kraken').fetch(async () => ({ error: ['EService:Unavailable'], result: {} }));
    expect(kraken).toEqual({ prices: [], errors: ['EService:Unavailable'] });
    const okx = await rateSource('okx').fetch(async () => ({ code: '50011', msg: 'Too Many Requests', data: [] }));
    expect(okx.errors).toContain('BTC: code 50011: Too Many Requests');
    const coinbase = await rateSource('coinbase').fetch(async () => ({ data: { amount: '1', currency: 'EUR' } }));
    expect(coinbase.errors).toContain('BTC: malformed answer: no data in USD');
    // Kraken answers under its own pair names, or the ones asked for
    const asked = await rateSource('kraken').fetch(async () => ({ error: [], result: { XBTUSD: { c: ['61000.5', '1'] } } }));
    expect(plainPrices(asked)).toEqual({ BTC: '61000.5 USD' });
    expect(asked.errors).toContain('ETH: malformed answer: no ETHUSD');
  });
});
