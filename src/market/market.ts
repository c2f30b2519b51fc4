// The market the composition root builds (CONTRACT.md "Static market data", "Live market data"):
//  - MARKET_FILE set: its figures, in both modes, for as long as the process runs;
//  - otherwise test mode on the built-in figures and live mode on the live sources.
import type { Config } from '../config.ts';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/logger.ts';
import { DEFAULT_MARKET } from './defaults.ts';
import { loadMarketFile } from './market-file.ts';
import type { MarketData, MarketSource } from './market-data.ts';
import type { NetworkFeeQuoter } from './network-fee-port.ts';
import { LiveMarket } from './live-market.ts';
import { rateSource } from './rate-sources.ts';
import { staticReport, type MarketReportEntry, type SourceHealth } from './report.ts';

export interface Market extends MarketSource {
  /** GET /admin/market for a mode. */
  report(livemode: boolean): MarketReportEntry[];
  /** The live sources' freshness (none for static figures). */
  sourceHealth(): SourceHealth[];
  /** Starts background refreshes (a no-op for static figures). */
  start(): void;
  stop(): Promise<void>;
  /** Asks the live sources once now (start does, then every RATE_REFRESH_S); a no-op for static figures. */
  refresh(): Promise<void>;
}

/** The same figures in both modes. */
export function staticMarket(data: MarketData, loadedAt: Date): Market {
  return {
    snapshot: () => data,
    report: () => staticReport(data, loadedAt),
    sourceHealth: () => [],
    start: () => {},
    stop: async () => {},
    refresh: async () => {},
  };
}

/** Test mode on `test` figures, live mode on the live sources. */
function liveAndTestMarket(live: LiveMarket, test: MarketData, loadedAt: Date): Market {
  return {
    snapshot: (livemode) => (livemode ? live.snapshot() : test),
    report: (livemode) => (livemode ? live.report() : staticReport(test, loadedAt)),
    sourceHealth: () => live.sourceHealth(),
    start: () => live.start(),
    stop: () => live.stop(),
    refresh: () => live.refresh(),
  };
}

export interface MarketDeps {
  config: Config;
  clock: Clock;
  log: Logger;
  /** The chain room's fee quotes, once it exists; until then live fees are the built-in figures. */
  networkFees?: NetworkFeeQuoter | null;
}

export function createMarket({ config, clock, log, networkFees }: MarketDeps): Market {
  if (config.marketFile) return staticMarket(loadMarketFile(config.marketFile, DEFAULT_MARKET, (m) => log.warn(m)), clock.now());
  const live = new LiveMarket({
    sources: config.rateSources.map((name) => rateSource(name, config.rateSourceUrls[name])),
    clock, log, refreshMs: config.rateRefreshS * 1000, maxAgeMs: config.rateMaxAgeS * 1000,
    fallback: DEFAULT_MARKET, networkFees,
  });
  return liveAndTestMarket(live, DEFAULT_MARKET, clock.now());
}
