// Rule 5's protections applied when the service's treasury carries a live conversion out: the
// plan quoted `amount_out` for `amount_in` (priced at the market when it was planned); at execution
// the market is read again and the result is what `amount_in` fetches then. The conversion is
// refused when that result falls more than 0.5% (stablecoin pairs 1%) below the quote, or when the
// quote's price is more than 3% from the market's now (either way: the market moved too far since
// the plan, or a price feed glitched, and the service pays nothing on it). Pure: the caller brings
// the market.
import { dec, ROUND_UP } from '../money/index.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import { isStablePair } from './conversion-paths.ts';
import {
  NOTE_SWAP_BELOW_QUOTE, NOTE_SWAP_NOT_WORTH_IT, NOTE_SWAP_PRICE_OFF_MARKET, SWAP_MAX_PRICE_GAP, SWAP_SLIPPAGE, SWAP_SLIPPAGE_STABLE, marketConversion,
} from './swap-guard.ts';
import type { MarketQuotes } from './types.ts';

export type ExecutionCheck = { ok: true; market_out: bigint } | { ok: false; reason: string; market_out: bigint };

/** The least the deposit may fetch at market now for the quote `amountOut` to stand (rounded up: never below the line). */
export function quoteFloor(from: TokenSymbol, to: TokenSymbol, amountOut: bigint): bigint {
  const slippage = isStablePair(from, to) ? SWAP_SLIPPAGE_STABLE : SWAP_SLIPPAGE;
  return BigInt(dec(amountOut).mul(dec(1).minus(slippage)).toDecimalPlaces(0, ROUND_UP).toFixed(0));
}

/** Whether the planned conversion of `amountIn` into exactly `amountOut` may be carried out at today's `market`. */
export function checkExecution(from: TokenSymbol, to: TokenSymbol, amountIn: bigint, amountOut: bigint, market: MarketQuotes): ExecutionCheck {
  const marketOut = marketConversion(from, to, amountIn, market);
  if (marketOut <= 0n || amountOut <= 0n) return { ok: false, reason: NOTE_SWAP_NOT_WORTH_IT, market_out: marketOut };
  // the quote's price against the market's, both over the same amount_in: a gap of the outputs
  if (dec(amountOut).minus(marketOut).abs().gt(dec(marketOut).mul(SWAP_MAX_PRICE_GAP))) {
    return { ok: false, reason: NOTE_SWAP_PRICE_OFF_MARKET, market_out: marketOut };
  }
  if (marketOut < quoteFloor(from, to, amountOut)) return { ok: false, reason: NOTE_SWAP_BELOW_QUOTE, market_out: marketOut };
  return { ok: true, market_out: marketOut };
}
