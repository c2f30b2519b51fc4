// What pricing needs to know about the market, per token, and the interface every source of it
// (the static MARKET_FILE, the built-in defaults, the live rates) presents.
import { AppError } from '../platform/errors.ts';
import { dec, type Decimal } from '../money/index.ts';
import { tokenDef, type TokenSymbol } from '../tokens/index.ts';

/**
 * `ok`: payments may be priced from the token's figures. Live mode only: `stale` (no fresh rate)
 * and `off_peg` (a stablecoin more than 5% from a dollar); nothing is priced from those.
 */
export type MarketStatus = 'ok' | 'stale' | 'off_peg';
export const MARKET_STATUSES: readonly MarketStatus[] = ['ok', 'stale', 'off_peg'];

export interface TokenMarket {
  /** Dollar price of one token (exactly 1 for USDT and USDC). */
  readonly rate: Decimal;
  /** Fixed part of the network fee of moving a deposit out of its address, in dollars. */
  readonly networkFeeUsd: Decimal;
  /** Current minimum payment (compared with the merchant's price). */
  readonly minUsd: Decimal;
  /** Least an exchange takes for a cross-network conversion of this coin. */
  readonly exchangeMinUsd: Decimal;
  readonly status: MarketStatus;
}

/** One consistent view of the market: every token has an entry. */
export type MarketData = Readonly<Record<TokenSymbol, TokenMarket>>;

/** A source of market data. `snapshot()` is cheap and synchronous: a live source answers from what it holds. */
export interface MarketSource {
  /** The figures of one mode: test mode never depends on live prices. */
  snapshot(livemode: boolean): MarketData;
}

/** Whether payments may be priced from a token's figures now. */
export const isPriced = (m: TokenMarket): boolean => m.status === 'ok';

/** CONTRACT.md "Live market data": a live payment in a coin with no current price. */
export const noCurrentPriceMessage = (token: TokenSymbol): string => `no current price for ${token}: try again shortly`;

/** The market's refusal to price `token` now (503): a class of its own, so a caller that waits for a price (the chain watcher's awaiting deposits) knows it by type, not by its text. */
export class NoCurrentPriceError extends AppError {
  readonly token: TokenSymbol;
  constructor(token: TokenSymbol) {
    super(503, noCurrentPriceMessage(token));
    this.name = 'NoCurrentPriceError';
    this.token = token;
  }
}

export const noCurrentPrice = (token: TokenSymbol): NoCurrentPriceError => new NoCurrentPriceError(token);

/**
 * The dollar rate of ledger and payout figures: 1 for USDT and USDC (spec: `usd_rate` is 1), else
 * the current rate; a coin with no current price answers 503 rather than a stale figure.
 */
export function usdRateOf(market: MarketData, token: TokenSymbol): Decimal {
  if (tokenDef(token).stablecoin) return dec(1);
  const m = market[token];
  if (!isPriced(m)) throw noCurrentPrice(token);
  return m.rate;
}
