// Price protections of an own-network swap (direct rule 5) and market-price conversion amounts.
import { dec, ROUND_DOWN, ROUND_UP, type Decimal } from '../money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import { isStablePair, rateOf } from './conversion-paths.ts';
import type { MarketQuotes } from './types.ts';

export const NOTE_SWAP_PRICE_OFF_MARKET = 'swap price off market';
export const NOTE_SWAP_BELOW_QUOTE = 'swap result below quote';
export const NOTE_SWAP_NOT_WORTH_IT = 'swap not worth it';

/** The swap price must be within 3% of the market price. */
export const SWAP_MAX_PRICE_GAP = dec('0.03');
/** The result may fall at most this far below the quote: 0.5%, stablecoin pairs 1%. */
export const SWAP_SLIPPAGE = dec('0.005');
export const SWAP_SLIPPAGE_STABLE = dec('0.01');

/** `amountIn` of `from` priced in base units of `to` at `price` (whole `to` per whole `from`), rounded down. */
export function convertUnits(from: TokenSymbol, to: TokenSymbol, amountIn: bigint, price: Decimal): bigint {
  const scaled = dec(amountIn).mul(price).mul(dec(10).pow(TOKEN_DEFS[to].decimals - TOKEN_DEFS[from].decimals));
  return BigInt(scaled.toDecimalPlaces(0, ROUND_DOWN).toFixed(0));
}

/** What `amountIn` fetches at market: the rates' ratio, rounded down to a base unit of `to`. */
export function marketConversion(from: TokenSymbol, to: TokenSymbol, amountIn: bigint, market: MarketQuotes): bigint {
  return convertUnits(from, to, amountIn, rateOf(market.rates, from).div(rateOf(market.rates, to)));
}

export type SwapCheck =
  | { ok: true; amount_out: bigint; min_amount_out: bigint }
  | { ok: false; reason: string; amount_out: bigint };

/**
 * Checks the quote of swapping `amountIn` of `from` into `to`. With no quote the market price is
 * the quote. `min_amount_out` is the least the executor may accept from the swap.
 */
export function checkSwap(from: TokenSymbol, to: TokenSymbol, amountIn: bigint, market: MarketQuotes): SwapCheck {
  const marketPrice = rateOf(market.rates, from).div(rateOf(market.rates, to));
  const quote = market.swap_quotes?.find((q) => q.from === from && q.to === to);
  const price = quote?.price ?? marketPrice;
  const quoted = convertUnits(from, to, amountIn, price);
  let expected = quote?.expected_out ?? quoted;
  if (quote?.expected_out !== undefined && quote.amount_in !== undefined && quote.amount_in > 0n && quote.amount_in !== amountIn) {
    expected = (quote.expected_out * amountIn) / quote.amount_in;
  }
  if (price.minus(marketPrice).abs().gt(marketPrice.mul(SWAP_MAX_PRICE_GAP))) return { ok: false, reason: NOTE_SWAP_PRICE_OFF_MARKET, amount_out: expected };
  const slippage = isStablePair(from, to) ? SWAP_SLIPPAGE_STABLE : SWAP_SLIPPAGE;
  const floor = BigInt(dec(quoted).mul(dec(1).minus(slippage)).toDecimalPlaces(0, ROUND_UP).toFixed(0));
  if (expected <= 0n) return { ok: false, reason: NOTE_SWAP_NOT_WORTH_IT, amount_out: expected };
  if (expected < floor) return { ok: false, reason: NOTE_SWAP_BELOW_QUOTE, amount_out: expected };
  return { ok: true, amount_out: expected, min_amount_out: floor };
}
