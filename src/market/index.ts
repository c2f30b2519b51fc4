// Door of the market room: market data (static or live) for pricing, the operator's view of it,
// and the port through which the chain room quotes network fees.
export {
  isPriced, noCurrentPrice, noCurrentPriceMessage, usdRateOf, MARKET_STATUSES,
  type MarketData, type MarketSource, type MarketStatus, type TokenMarket,
} from './market-data.ts';
export { DEFAULT_MARKET } from './defaults.ts';
export { parseMarketData, loadMarketFile, MarketFileError } from './market-file.ts';
export { createMarket, staticMarket, liveAndTestMarket, type Market, type MarketDeps } from './market.ts';
export { LiveMarket, FETCH_TIMEOUT_MS, type LiveMarketOptions } from './live-market.ts';
export { rateSource, DEFAULT_SOURCE_URLS, type RateSource } from './rate-sources.ts';
export type { MarketReportEntry, MarketReportSource, SourceHealth } from './report.ts';
export type { NetworkFeeQuoter } from './network-fee-port.ts';
export { registerMarketMetrics } from './market-metrics.ts';
export { registerMarketRoutes } from './routes.ts';
