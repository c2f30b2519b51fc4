// The planner's market view from a MarketSource snapshot. Swap quotes come from the market rates
// themselves (no swap router yet), so a swap is always at market price.
import type { MarketData, MarketSource } from '../market/index.ts';
import { TOKENS, type TokenSymbol } from '../tokens/index.ts';
import type { Decimal } from '../money/index.ts';
import type { MarketQuotes } from './planner.ts';

export function marketQuotes(data: MarketData): MarketQuotes {
  const pick = (f: (t: TokenSymbol) => Decimal): Partial<Record<TokenSymbol, Decimal>> =>
    Object.fromEntries(TOKENS.map((t) => [t, f(t)])) as Partial<Record<TokenSymbol, Decimal>>;
  return {
    rates: pick((t) => data[t].rate),
    network_fee_usd: pick((t) => data[t].networkFeeUsd),
    exchange_min_usd: pick((t) => data[t].exchangeMinUsd),
  };
}

export const quotesOf = (source: MarketSource): MarketQuotes => marketQuotes(source.snapshot());
