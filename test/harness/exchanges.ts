// Local stand-ins for the five price APIs (node:http on port 0): each answers at its documented path
// in its documented shape (src/market/rate-sources.ts), from dollar prices the test sets. Binance
// and OKX quote in USDT, so they answer the dollar price divided by USDT's. A source can be told to
// fail (HTTP 500, 429), hang (for timeouts), answer a malformed body, answer what is not JSON, or
// quote one asset at a price of its own (an outlier).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dec } from '../../src/money/index.ts';
import { RATE_SOURCE_NAMES, type RateSourceName } from '../../src/config.ts';

export type Asset = 'BTC' | 'LTC' | 'DOGE' | 'ETH' | 'BNB' | 'TRX' | 'XRP' | 'USDT' | 'USDC';
export type Behaviour = 'ok' | 'http500' | 'http429' | 'hang' | 'malformed' | 'not_json';

export const FAIR_PRICES: Record<Asset, string> = {
  BTC: '60000', LTC: '80', DOGE: '0.15', ETH: '3000', BNB: '600', TRX: '0.25', XRP: '0.6', USDT: '1', USDC: '1',
};

const KRAKEN_KEYS: Record<string, string> = {
  XBTUSD: 'XXBTZUSD', ETHUSD: 'XETHZUSD', LTCUSD: 'XLTCZUSD', XDGUSD: 'XDGUSD', XRPUSD: 'XXRPZUSD', TRXUSD: 'TRXUSD', USDTUSD: 'USDTZUSD', USDCUSD: 'USDCUSD',
};
const KRAKEN_ASSET: Record<string, Asset> = { XBT: 'BTC', XDG: 'DOGE' };

interface SourceSetup { behaviour: Behaviour; prices: Partial<Record<Asset, string>> }

export class FakeExchanges {
  readonly #server: http.Server;
  #base = '';
  /** Dollar prices every source answers unless told otherwise. */
  prices: Record<Asset, string> = { ...FAIR_PRICES };
  readonly #setup = new Map<RateSourceName, SourceSetup>();
  readonly requests: Record<RateSourceName, number> = { coinbase: 0, kraken: 0, binance: 0, bitstamp: 0, okx: 0 };

  private constructor() {
    this.#server = http.createServer((req, res) => this.#answer(req, res));
  }

  static async start(): Promise<FakeExchanges> {
    const f = new FakeExchanges();
    await new Promise<void>((resolve) => f.#server.listen(0, '127.0.0.1', resolve));
    f.#base = `http://127.0.0.1:${(f.#server.address() as AddressInfo).port}`;
    return f;
  }

  /** The base URL of a source (RATE_SOURCE_<NAME>_URL). */
  url(name: RateSourceName): string {
    return `${this.#base}/${name}`;
  }

  /** RATE_SOURCE_<NAME>_URL of every source, pointing here. */
  env(): Record<string, string> {
    return Object.fromEntries(RATE_SOURCE_NAMES.map((n) => [`RATE_SOURCE_${n.toUpperCase()}_URL`, this.url(n)]));
  }

  /** How a source answers from now on (`prices` in dollars, for the assets given). */
  set(name: RateSourceName, setup: Partial<SourceSetup>): void {
    this.#setup.set(name, { behaviour: 'ok', prices: {}, ...this.#setup.get(name), ...setup });
  }

  /** Every source answers normally at `prices` again. */
  reset(): void {
    this.#setup.clear();
    this.prices = { ...FAIR_PRICES };
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #price(name: RateSourceName, asset: Asset, inUsdt: boolean): string {
    const usd = dec(this.#setup.get(name)?.prices[asset] ?? this.prices[asset]);
    return inUsdt ? usd.div(dec(this.prices.USDT)).toDecimalPlaces(8).toFixed() : usd.toFixed();
  }

  #answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.#base);
    const [, name, ...rest] = url.pathname.split('/');
    const source = name as RateSourceName;
    if (!(source in this.requests)) return void res.writeHead(404).end();
    this.requests[source]++;
    const behaviour = this.#setup.get(source)?.behaviour ?? 'ok';
    if (behaviour === 'hang') return;
    if (behaviour === 'http500') return void res.writeHead(500).end('oops');
    if (behaviour === 'http429') return void res.writeHead(429, { 'retry-after': '1' }).end('{"error":"too many requests"}');
    if (behaviour === 'not_json') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
    const body = this.#body(source, `/${rest.join('/')}`, url.searchParams, behaviour === 'malformed');
    if (body === undefined) return void res.writeHead(404).end('{}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  #body(source: RateSourceName, path: string, q: URLSearchParams, malformed: boolean): unknown {
    const price = (a: Asset, inUsdt = false) => this.#price(source, a, inUsdt);
    let m: RegExpExecArray | null;
    switch (source) {
      case 'coinbase':
        if (!(m = /^\/v2\/prices\/([A-Z]+)-USD\/spot$/.exec(path))) return undefined;
        return { data: { amount: malformed ? Number(price(m[1] as Asset)) : price(m[1] as Asset), base: m[1], currency: 'USD' } };
      case 'kraken': {
        if (path !== '/0/public/Ticker') return undefined;
        if (malformed) return { error: [], result: 'none' };
        const result: Record<string, unknown> = {};
        for (const pair of (q.get('pair') ?? '').split(',')) {
          const base = pair.replace(/USD$/, '');
          result[KRAKEN_KEYS[pair] ?? pair] = { a: ['0', '1', '1.0'], c: [price(KRAKEN_ASSET[base] ?? (base as Asset)), '0.1'] };
        }
        return { error: [], result };
      }
      case 'binance': {
        if (path !== '/api/v3/ticker/price') return undefined;
        const symbols = JSON.parse(q.get('symbols') ?? '[]') as string[];
        return symbols.map((s) => ({ symbol: s, price: malformed ? 'n/a' : price(s.replace(/USDT$/, '') as Asset, true) }));
      }
      case 'bitstamp':
        if (!(m = /^\/api\/v2\/ticker\/([a-z]+)usd\/$/.exec(path))) return undefined;
        return malformed ? { last: null } : { last: price(m[1].toUpperCase() as Asset), bid: '0', ask: '0', timestamp: '1' };
      case 'okx': {
        const inst = q.get('instId') ?? '';
        if (path !== '/api/v5/market/ticker' || !inst.endsWith('-USDT')) return undefined;
        return { code: '0', msg: '', data: malformed ? [] : [{ instType: 'SPOT', instId: inst, last: price(inst.replace(/-USDT$/, '') as Asset, true) }] };
      }
    }
  }
}
