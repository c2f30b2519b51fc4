// What pricing needs to know about the market, per token, and the interface every source of it
// (the static MARKET_FILE, the built-in defaults, a live feed later) presents.
import type { Decimal } from '../money/index.ts';
import type { TokenSymbol } from '../tokens/index.ts';

export interface TokenMarket {
  /** Dollar price of one token. */
  readonly rate: Decimal;
  /** Fixed part of the network fee of moving a deposit out of its address, in dollars. */
  readonly networkFeeUsd: Decimal;
  /** Current minimum payment (compared with the merchant's price). */
  readonly minUsd: Decimal;
  /** Least an exchange takes for a cross-network conversion of this coin. */
  readonly exchangeMinUsd: Decimal;
}

/** One consistent view of the market: every token has an entry. */
export type MarketData = Readonly<Record<TokenSymbol, TokenMarket>>;

/** A source of market data. `snapshot()` is cheap and synchronous: live sources cache. */
export interface MarketSource {
  snapshot(): MarketData;
}

/** A source that never changes: the defaults, or a MARKET_FILE read at start. */
export function staticMarketSource(data: MarketData): MarketSource {
  return { snapshot: () => data };
}
