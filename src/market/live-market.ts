// The live market (CONTRACT.md "Live market data"): every RATE_REFRESH_S the sources are asked in
// the background, each fetch with a time limit, together with the chain's network fee quotes; a
// request never waits for them. What the sources said is kept with the time it arrived, and the
// view payments are priced from (snapshot) is worked out from it: again after each refresh, and
// again the first time it is asked for after a price it used has gone stale, so it degrades coin
// by coin on time even when every source has gone quiet.
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/logger.ts';
import { RATE_SOURCE_NAMES, type RateSourceName } from '../config.ts';
import { dec, plain, rateHalfUp, type Decimal } from '../money/index.ts';
import { TOKENS, tokenDef, type TokenSymbol } from '../tokens/index.ts';
import { MARKET_ASSETS, assetOf, isStableAsset, nativeTokenOf, type MarketAsset } from './assets.ts';
import { aggregate, pegState, type AssetRate, type PegState, type Quote } from './aggregate.ts';
import { minimumUsd, networkFeeUsd } from './network-fees.ts';
import type { MarketData, MarketStatus, TokenMarket } from './market-data.ts';
import type { NetworkFeeQuoter } from './network-fee-port.ts';
import { rateSource, type RateSource, type SourceAnswer } from './rate-sources.ts';
import { httpGetJson } from './source-http.ts';
import type { MarketReportEntry, SourceHealth } from './report.ts';

/** Time limit of one source's requests (or one fee quote), and never longer than the refresh period. */
const FETCH_TIMEOUT_MS = 5000;

export interface LiveMarketOptions {
  sources: readonly RateSource[];
  clock: Clock;
  log: Logger;
  refreshMs: number;
  maxAgeMs: number;
  /** The built-in figures: network fee and minimum when the chain gives no quote, exchange minimums always. */
  fallback: MarketData;
  /** The chain room's sweep fee quotes; without one (or when it answers null) the built-in fees apply. */
  networkFees?: NetworkFeeQuoter | null;
  /** The signal that ends one fetch after `ms` (tests pass one they fire by hand). */
  timeout?: (ms: number) => AbortSignal;
}

interface SourceState {
  source: RateSource;
  quotes: Map<MarketAsset, Quote>;
  lastSuccessAt: number | null;
  /** The last fetch gave at least one price. */
  up: boolean;
  lastError: string | null;
}

interface View {
  data: MarketData;
  assets: ReadonlyMap<MarketAsset, AssetRate>;
  /** Epoch ms from which the view must be worked out again. */
  validUntil: number;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** `p`, or the signal's reason if it fires first. */
function raced<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export class LiveMarket {
  readonly #sources: SourceState[];
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #refreshMs: number;
  readonly #maxAgeMs: number;
  readonly #timeoutMs: number;
  readonly #fallback: MarketData;
  readonly #fees: NetworkFeeQuoter | null;
  readonly #timeout: (ms: number) => AbortSignal;
  readonly #feeQuotes = new Map<TokenSymbol, { units: bigint; fetchedAt: number }>();
  /** The last rate each asset had while fresh: shown to the operator once stale, never priced from. */
  readonly #lastRates = new Map<MarketAsset, { rate: Decimal; at: number }>();
  readonly #pegs = new Map<MarketAsset, PegState>();
  #stale = new Set<MarketAsset>();
  readonly #stopped = new AbortController();
  #view: View;
  #inFlight: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(o: LiveMarketOptions) {
    this.#sources = o.sources.map((source) => ({ source, quotes: new Map(), lastSuccessAt: null, up: false, lastError: null }));
    this.#clock = o.clock;
    this.#log = o.log;
    this.#refreshMs = o.refreshMs;
    this.#maxAgeMs = o.maxAgeMs;
    this.#timeoutMs = Math.min(FETCH_TIMEOUT_MS, o.refreshMs);
    this.#fallback = o.fallback;
    this.#fees = o.networkFees ?? null;
    this.#timeout = o.timeout ?? ((ms) => AbortSignal.timeout(ms));
    this.#view = this.#compute(this.#now(), false);
  }

  #now(): number {
    return this.#clock.now().getTime();
  }

  /** The live view: synchronous, worked out again only when a price it used has gone stale. */
  snapshot(): MarketData {
    return this.#current().data;
  }

  #current(): View {
    const now = this.#now();
    if (now >= this.#view.validUntil) this.#view = this.#compute(now, false);
    return this.#view;
  }

  /** First refresh now, then every RATE_REFRESH_S; the timer never holds the process open. */
  start(): void {
    if (this.#timer || this.#stopped.signal.aborted) return;
    this.#warnIfOnlyUsdt();
    void this.refresh();
    this.#timer = setInterval(() => void this.refresh(), this.#refreshMs);
    this.#timer.unref();
  }

  /**
   * Prices in USDT count only at USDT's own dollar rate, which only a source quoting in dollars
   * gives (aggregate.ts): RATE_SOURCES made of Binance and OKX alone can price nothing, ever.
   */
  #warnIfOnlyUsdt(): void {
    if (this.#sources.length === 0 || this.#sources.some((s) => s.source.quote === 'USD')) return;
    const names = this.#sources.map((s) => s.source.name).join(', ');
    const inDollars = RATE_SOURCE_NAMES.filter((n) => rateSource(n).quote === 'USD').join(', ').replace(/, ([^,]*)$/, ' or $1');
    this.#log.warn({ sources: this.#sources.map((s) => s.source.name) },
      `RATE_SOURCES (${names}) quote every coin in USDT and none gives USDT's own dollar price: no live coin can be priced, and live payments are refused (503) until RATE_SOURCES names ${inDollars} as well`);
  }

  /** Ends the refreshes: fetches under way are abandoned. */
  async stop(): Promise<void> {
    this.#stopped.abort(new Error('stopped'));
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#inFlight;
  }

  /** Asks every source (and the fee quoter) once; a refresh already under way is joined, not repeated. */
  refresh(): Promise<void> {
    if (this.#stopped.signal.aborted) return Promise.resolve();
    this.#inFlight ??= this.#refreshOnce().finally(() => { this.#inFlight = null; });
    return this.#inFlight;
  }

  async #refreshOnce(): Promise<void> {
    try {
      await Promise.all([...this.#sources.map((s) => this.#fetchSource(s)), this.#fetchFees()]);
      if (this.#stopped.signal.aborted) return;
      this.#view = this.#compute(this.#now(), true);
    } catch (err) {
      // Runs in the background: a bug here must not end the process; the view ages out on its own.
      this.#log.error({ err }, 'live market refresh failed');
    }
  }

  #signal(): AbortSignal {
    return AbortSignal.any([this.#stopped.signal, this.#timeout(this.#timeoutMs)]);
  }

  async #fetchSource(s: SourceState): Promise<void> {
    let answer: SourceAnswer;
    try {
      answer = await s.source.fetch(httpGetJson(this.#signal()));
    } catch (err) {
      answer = { prices: [], errors: [err instanceof Error ? err.message : String(err)] };
    }
    if (this.#stopped.signal.aborted) return;
    const at = this.#now();
    for (const p of answer.prices) s.quotes.set(p.asset, { source: s.source.name, price: p.price, quote: p.quote, fetchedAt: at });
    s.up = answer.prices.length > 0;
    if (s.up) s.lastSuccessAt = at;
    const error = answer.errors.length > 0 ? answer.errors.sort().join('; ') : null;
    // Logged when it changes: a source that stays down says so once, not every refresh.
    if (error && error !== s.lastError) this.#log.warn({ source: s.source.name }, `rate source ${s.source.name}: ${error}`);
    else if (!error && s.lastError) this.#log.info({ source: s.source.name }, `rate source ${s.source.name} answers again`);
    s.lastError = error;
  }

  async #fetchFees(): Promise<void> {
    const quoter = this.#fees;
    if (!quoter) return;
    await Promise.all(TOKENS.map(async (token) => {
      try {
        const units = await raced(quoter.quoteSweepFee(token), this.#signal());
        if (units !== null && units >= 0n && !this.#stopped.signal.aborted) this.#feeQuotes.set(token, { units, fetchedAt: this.#now() });
      } catch (err) {
        this.#log.debug({ err, token }, 'network fee quote failed');
      }
    }));
  }

  #compute(now: number, afterRefresh: boolean): View {
    const quotesOf = (a: MarketAsset) => this.#sources.flatMap((s) => { const q = s.quotes.get(a); return q ? [q] : []; });
    const usdt = aggregate(quotesOf('USDT'), { now, maxAgeMs: this.#maxAgeMs, usdtUsd: null });
    const assets = new Map<MarketAsset, AssetRate>();
    for (const a of MARKET_ASSETS) {
      assets.set(a, a === 'USDT' ? usdt : aggregate(quotesOf(a), { now, maxAgeMs: this.#maxAgeMs, usdtUsd: usdt.rate }));
    }
    let validUntil = Math.min(...[...assets.values()].map((r) => r.changesAt));
    const fees = new Map<TokenSymbol, bigint>();
    for (const [token, f] of this.#feeQuotes) {
      if (now - f.fetchedAt > this.#maxAgeMs) continue;
      fees.set(token, f.units);
      validUntil = Math.min(validUntil, f.fetchedAt + this.#maxAgeMs + 1);
    }
    for (const [a, r] of assets) if (r.rate && r.updatedAt !== null) this.#lastRates.set(a, { rate: r.rate, at: r.updatedAt });
    if (afterRefresh) this.#logChanges(assets);
    const data = Object.fromEntries(TOKENS.map((t) => [t, this.#tokenMarket(t, assets, fees)])) as Record<TokenSymbol, TokenMarket>;
    return { data: Object.freeze(data), assets, validUntil };
  }

  #tokenMarket(token: TokenSymbol, assets: ReadonlyMap<MarketAsset, AssetRate>, fees: ReadonlyMap<TokenSymbol, bigint>): TokenMarket {
    const def = tokenDef(token);
    const asset = assetOf(token);
    const fallback = this.#fallback[token];
    const rate = assets.get(asset)!.rate;
    let status: MarketStatus = 'ok';
    if (!rate) status = 'stale';
    else if (def.stablecoin && pegState(rate) === 'off_peg') status = 'off_peg';
    const nativeRate = assets.get(assetOf(nativeTokenOf(def.chain)))!.rate;
    const units = fees.get(token);
    const networkFee = units !== undefined && nativeRate ? networkFeeUsd(token, units, nativeRate) : fallback.networkFeeUsd;
    return Object.freeze({
      // USDT and USDC are priced at exactly one dollar (spec); their market price only decides their status.
      rate: def.stablecoin ? dec(1) : rate ?? this.#lastRates.get(asset)?.rate ?? fallback.rate,
      networkFeeUsd: networkFee,
      minUsd: minimumUsd(fallback.minUsd, networkFee),
      exchangeMinUsd: fallback.exchangeMinUsd,
      status,
    });
  }

  #logChanges(assets: ReadonlyMap<MarketAsset, AssetRate>): void {
    const stale = new Set<MarketAsset>();
    for (const [asset, r] of assets) {
      for (const u of r.uses) {
        if (u.outlier) this.#log.warn({ source: u.source, coin: asset, price: plain(u.price) }, `rate source ${u.source} left out for ${asset}: ${plain(u.price)} is more than 5% from the median of the fresh sources`);
      }
      if (!r.rate) stale.add(asset);
      if (r.rate && isStableAsset(asset)) this.#logPeg(asset, r.rate);
    }
    const lost = [...stale].filter((a) => !this.#stale.has(a));
    const back = [...this.#stale].filter((a) => !stale.has(a));
    if (lost.length > 0) this.#log.warn({ coins: lost }, `no current price for ${lost.join(', ')}: live payments in them are refused until a rate returns`);
    if (back.length > 0) this.#log.info({ coins: back }, `current price again for ${back.join(', ')}`);
    this.#stale = stale;
  }

  #logPeg(asset: MarketAsset, price: Decimal): void {
    const state = pegState(price);
    const before = this.#pegs.get(asset) ?? 'on_peg';
    this.#pegs.set(asset, state);
    if (state === before) return;
    const fields = { coin: asset, price: plain(price) };
    if (state === 'off_peg') this.#log.warn(fields, `${asset} is at $${plain(price)}, more than 5% from a dollar: its live payments are refused`);
    else if (state === 'drifting') this.#log.warn(fields, `${asset} is at $${plain(price)}, more than 2% from a dollar`);
    else this.#log.info(fields, `${asset} is back within 2% of a dollar ($${plain(price)})`);
  }

  /** GET /admin/market: each token's rate (stablecoins: their market price), status and sources. */
  report(): MarketReportEntry[] {
    const view = this.#current();
    return TOKENS.map((token) => {
      const asset = assetOf(token);
      const r = view.assets.get(asset)!;
      const last = this.#lastRates.get(asset);
      return {
        token,
        rate: r.rate ? plain(r.rate) : last ? plain(last.rate) : null,
        status: view.data[token].status,
        updated_at: iso(r.rate ? r.updatedAt : last?.at ?? null),
        sources: r.uses.map((u) => ({ name: u.source, rate: plain(rateHalfUp(u.price)), fetched_at: iso(u.fetchedAt)!, used: u.used })),
      };
    });
  }

  /** Each source's freshness, for /metrics. */
  sourceHealth(): SourceHealth[] {
    return this.#sources.map((s) => ({ name: s.source.name as RateSourceName, up: s.up, lastSuccessAt: s.lastSuccessAt, lastError: s.lastError }));
  }
}
