// The five public price APIs of CONTRACT.md "Live market data" behind one interface. Each is a
// table (asset → the exchange's own pair name) and the documented endpoint and answer shape:
//   coinbase  GET /v2/prices/{BASE}-USD/spot          {"data": {"amount", "base", "currency": "USD"}}
//   kraken    GET /0/public/Ticker?pair=XBTUSD,…      {"error": [], "result": {"XXBTZUSD": {"c": [price, lot], …}}}
//   binance   GET /api/v3/ticker/price?symbols=[…]    [{"symbol": "BTCUSDT", "price"}]
//   bitstamp  GET /api/v2/ticker/{pair}/              {"last", …}
//   okx       GET /api/v5/market/ticker?instId=BTC-USDT  {"code": "0", "data": [{"instId", "last"}]}
// Binance and OKX have no dollar pairs: their prices are in USDT and the live market turns them
// into dollars at USDT's own dollar rate (see aggregate.ts). A pair an exchange does not list is
// simply absent from its table. Prices must be decimal strings: anything else is a malformed answer.
import type { RateSourceName } from '../config.ts';
import { dec, type Decimal } from '../money/index.ts';
import type { MarketAsset } from './assets.ts';
import { SourceError, type GetJson } from './source-http.ts';

export type QuoteCurrency = 'USD' | 'USDT';

export interface SourcePrice {
  asset: MarketAsset;
  /** One unit of the asset in `quote`. */
  price: Decimal;
  quote: QuoteCurrency;
}

/** What one fetch of a source gave: the prices it had, and why the others are missing. */
export interface SourceAnswer {
  prices: SourcePrice[];
  /** `"<ASSET>: <why>"` per asset that failed, or one line when the whole source did. */
  errors: string[];
}

export interface RateSource {
  readonly name: RateSourceName;
  /** What its prices are in: USDT's only count once a USD source gives USDT's own dollar price. */
  readonly quote: QuoteCurrency;
  fetch(get: GetJson): Promise<SourceAnswer>;
}

/** Base URLs: everything before the documented API path (RATE_SOURCE_<NAME>_URL replaces it). */
const DEFAULT_SOURCE_URLS: Readonly<Record<RateSourceName, string>> = {
  coinbase: 'https://api.coinbase.com',
  kraken: 'https://api.kraken.com',
  binance: 'https://api.binance.com',
  bitstamp: 'https://www.bitstamp.net',
  okx: 'https://www.okx.com',
};

type Pairs = Partial<Record<MarketAsset, string>>;

const PRICE = /^\d+(\.\d+)?$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A positive decimal string, or a SourceError naming what was wrong. */
function priceOf(v: unknown): Decimal {
  if (typeof v !== 'string' || !PRICE.test(v)) throw new SourceError(`malformed answer: price ${JSON.stringify(v)?.slice(0, 40)}`);
  const d = dec(v);
  if (d.lte(0)) throw new SourceError('malformed answer: price is not positive');
  return d;
}

const malformed = (what: string): SourceError => new SourceError(`malformed answer: ${what}`);
const failed = (asset: string, err: unknown): string => `${asset}: ${err instanceof SourceError ? err.message : String(err)}`;

/** One request per pair (Coinbase, Bitstamp, OKX): a pair that fails leaves the others. */
function perPair(quote: QuoteCurrency, pairs: Pairs, url: (pair: string) => string, read: (body: unknown, pair: string) => unknown): RateSource['fetch'] {
  return async (get) => {
    const answer: SourceAnswer = { prices: [], errors: [] };
    await Promise.all(Object.entries(pairs).map(async ([asset, pair]) => {
      try {
        answer.prices.push({ asset: asset as MarketAsset, price: priceOf(read(await get(url(pair)), pair)), quote });
      } catch (err) {
        answer.errors.push(failed(asset, err));
      }
    }));
    return answer;
  };
}

/** One request for every pair (Kraken, Binance): `read` maps the answer to pair → price text. */
function allPairs(quote: QuoteCurrency, pairs: Pairs, url: (pairs: string[]) => string, read: (body: unknown) => Map<string, unknown>): RateSource['fetch'] {
  return async (get) => {
    const answer: SourceAnswer = { prices: [], errors: [] };
    let found: Map<string, unknown>;
    try {
      found = read(await get(url(Object.values(pairs))));
    } catch (err) {
      answer.errors.push(err instanceof SourceError ? err.message : String(err));
      return answer;
    }
    for (const [asset, pair] of Object.entries(pairs)) {
      try {
        if (!found.has(pair)) throw malformed(`no ${pair}`);
        answer.prices.push({ asset: asset as MarketAsset, price: priceOf(found.get(pair)), quote });
      } catch (err) {
        answer.errors.push(failed(asset, err));
      }
    }
    return answer;
  };
}

/** Binance and OKX list no dollar pairs. */
const QUOTES: Record<RateSourceName, QuoteCurrency> = { coinbase: 'USD', kraken: 'USD', binance: 'USDT', bitstamp: 'USD', okx: 'USDT' };

const coinbase = (base: string): RateSource['fetch'] => perPair(QUOTES.coinbase,
  { BTC: 'BTC-USD', LTC: 'LTC-USD', DOGE: 'DOGE-USD', ETH: 'ETH-USD', XRP: 'XRP-USD', USDT: 'USDT-USD', USDC: 'USDC-USD' },
  (pair) => `${base}/v2/prices/${pair}/spot`,
  (body) => {
    const data = isObject(body) ? body.data : undefined;
    if (!isObject(data) || data.currency !== 'USD') throw malformed('no data in USD');
    return data.amount;
  });

// Kraken answers under its own pair names (XBTUSD comes back as XXBTZUSD): [asked, answered].
const KRAKEN: Partial<Record<MarketAsset, readonly [string, string]>> = {
  BTC: ['XBTUSD', 'XXBTZUSD'], ETH: ['ETHUSD', 'XETHZUSD'], LTC: ['LTCUSD', 'XLTCZUSD'], DOGE: ['XDGUSD', 'XDGUSD'],
  XRP: ['XRPUSD', 'XXRPZUSD'], TRX: ['TRXUSD', 'TRXUSD'], USDT: ['USDTUSD', 'USDTZUSD'], USDC: ['USDCUSD', 'USDCUSD'],
};
const kraken = (base: string): RateSource['fetch'] => allPairs(QUOTES.kraken,
  Object.fromEntries(Object.entries(KRAKEN).map(([a, [asked]]) => [a, asked])),
  (pairs) => `${base}/0/public/Ticker?pair=${pairs.join(',')}`,
  (body) => {
    if (!isObject(body)) throw malformed('not an object');
    if (Array.isArray(body.error) && body.error.length > 0) throw new SourceError(body.error.map(String).join('; '));
    if (!isObject(body.result)) throw malformed('no result');
    const result = body.result;
    const found = new Map<string, unknown>();
    for (const [asked, answered] of Object.values(KRAKEN)) {
      const entry = result[answered] ?? result[asked];
      if (isObject(entry) && Array.isArray(entry.c)) found.set(asked, entry.c[0]);
    }
    return found;
  });

const binance = (base: string): RateSource['fetch'] => allPairs(QUOTES.binance,
  { BTC: 'BTCUSDT', LTC: 'LTCUSDT', DOGE: 'DOGEUSDT', ETH: 'ETHUSDT', BNB: 'BNBUSDT', TRX: 'TRXUSDT', XRP: 'XRPUSDT', USDC: 'USDCUSDT' },
  (pairs) => `${base}/api/v3/ticker/price?symbols=${encodeURIComponent(JSON.stringify(pairs))}`,
  (body) => {
    if (!Array.isArray(body)) throw malformed('not a list');
    return new Map(body.filter(isObject).map((x) => [String(x.symbol), x.price]));
  });

const bitstamp = (base: string): RateSource['fetch'] => perPair(QUOTES.bitstamp,
  { BTC: 'btcusd', LTC: 'ltcusd', ETH: 'ethusd', XRP: 'xrpusd', USDT: 'usdtusd', USDC: 'usdcusd' },
  (pair) => `${base}/api/v2/ticker/${pair}/`,
  (body) => (isObject(body) ? body.last : undefined));

const okx = (base: string): RateSource['fetch'] => perPair(QUOTES.okx,
  { BTC: 'BTC-USDT', LTC: 'LTC-USDT', DOGE: 'DOGE-USDT', ETH: 'ETH-USDT', BNB: 'BNB-USDT', TRX: 'TRX-USDT', XRP: 'XRP-USDT', USDC: 'USDC-USDT' },
  (pair) => `${base}/api/v5/market/ticker?instId=${pair}`,
  (body, pair) => {
    if (!isObject(body)) throw malformed('not an object');
    if (body.code !== '0') throw new SourceError(`code ${String(body.code)}: ${String(body.msg ?? '')}`.slice(0, 120));
    const row = Array.isArray(body.data) ? body.data.find((x) => isObject(x) && x.instId === pair) : undefined;
    if (!isObject(row)) throw malformed(`no ${pair}`);
    return row.last;
  });

const FETCHERS: Record<RateSourceName, (base: string) => RateSource['fetch']> = { coinbase, kraken, binance, bitstamp, okx };

/** The source `name` at `baseUrl` (its public API unless RATE_SOURCE_<NAME>_URL says otherwise). */
export function rateSource(name: RateSourceName, baseUrl: string = DEFAULT_SOURCE_URLS[name]): RateSource {
  return { name, quote: QUOTES[name], fetch: FETCHERS[name](baseUrl.replace(/\/+$/, '')) };
}
