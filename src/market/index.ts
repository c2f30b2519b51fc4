export { staticMarketSource, type MarketData, type MarketSource, type TokenMarket } from './market-data.ts';
export { DEFAULT_MARKET } from './defaults.ts';
export { parseMarketData, loadMarketFile, MarketFileError } from './market-file.ts';
