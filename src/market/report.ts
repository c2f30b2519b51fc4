// What the operator sees of the market: GET /admin/market (CONTRACT.md, operator API) and the
// sources' freshness behind /metrics.
import { plain } from '../money/index.ts';
import { TOKENS, type TokenSymbol } from '../tokens/index.ts';
import type { RateSourceName } from '../config.ts';
import type { MarketData, MarketStatus } from './market-data.ts';

export interface MarketReportSource {
  name: string;
  /** The source's dollar price of the token. */
  rate: string;
  fetched_at: string;
  /** Counted in the rate (fresh and within 5% of the median). */
  used: boolean;
}

export interface MarketReportEntry {
  token: TokenSymbol;
  /** Null while a live token has never had a rate. */
  rate: string | null;
  status: MarketStatus;
  updated_at: string | null;
  sources: MarketReportSource[];
}

export interface SourceHealth {
  name: RateSourceName;
  /** Its last fetch gave at least one price. */
  up: boolean;
  /** Epoch ms of its last price; null when it never gave one. */
  lastSuccessAt: number | null;
  lastError: string | null;
}

/** Static figures (MARKET_FILE, or test mode's built-in ones): the figures in use, no sources. */
export function staticReport(data: MarketData, loadedAt: Date): MarketReportEntry[] {
  const at = loadedAt.toISOString();
  return TOKENS.map((token) => ({ token, rate: plain(data[token].rate), status: data[token].status, updated_at: at, sources: [] }));
}
