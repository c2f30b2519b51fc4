// Door of the market room: market data (static or live) for pricing, the operator's view of it,
// and the port through which the chain room quotes network fees.
export {
  isPriced, noCurrentPrice, noCurrentPriceMessage, NoCurrentPriceError, usdRateOf,
  type MarketData, type MarketSource, type MarketStatus, type TokenMarket,
} from './market-data.ts';
export { DEFAULT_MARKET } from './defaults.ts';
export { parseMarketData, loadMarketFile, MarketFileError } from './market-file.ts';
export { createMarket, staticMarket, type Market } from './market.ts';
export type { MarketReportEntry } from './report.ts';
export type { NetworkFeeQuoter } from './network-fee-port.ts';
export { registerMarketMetrics } from './market-metrics.ts';
export { registerMarketRoutes } from './routes.ts';
