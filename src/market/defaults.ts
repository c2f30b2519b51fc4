// Built-in market data: used for test mode and for every token MARKET_FILE leaves out. Values
// are round, real-world-like figures (late 2026); nothing here is a live quote.
import { dec } from '../money/index.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import type { MarketData, TokenMarket } from './market-data.ts';

// rate, network_fee_usd, min_usd, exchange_min_usd (dollars, as decimal strings)
const TABLE: Record<TokenSymbol, readonly [string, string, string, string]> = {
  BTC: ['90000', '1.5', '5', '20'],
  LTC: ['90', '0.05', '1', '10'],
  DOGE: ['0.16', '0.1', '1', '10'],
  ETH: ['3000', '1', '3', '15'],
  // ERC-20 transfers cost more gas than ETH itself
  USDT_ERC20: ['1', '2', '5', '15'],
  USDC_ERC20: ['1', '2', '5', '15'],
  BNB: ['900', '0.1', '1', '10'],
  USDT_BEP20: ['1', '0.15', '1', '10'],
  USDC_BEP20: ['1', '0.15', '1', '10'],
  TRX: ['0.28', '0.5', '1', '10'],
  // a TRC-20 transfer burns energy: about a dollar
  USDT_TRC20: ['1', '1', '2', '10'],
  XRP: ['2', '0.01', '1', '10'],
};

const entry = ([rate, fee, min, exchangeMin]: readonly [string, string, string, string]): TokenMarket =>
  Object.freeze({ rate: dec(rate), networkFeeUsd: dec(fee), minUsd: dec(min), exchangeMinUsd: dec(exchangeMin), status: 'ok' });

export const DEFAULT_MARKET: MarketData = Object.freeze(
  Object.fromEntries(Object.entries(TABLE).map(([token, row]) => [token, entry(row)])) as Record<TokenSymbol, TokenMarket>,
);
