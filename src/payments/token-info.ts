// TokenInfo (spec part 2): the coin listings of GET /v1/tokens, GET /tokens and a payment's
// token_options, in their wire shape (decimal strings without trailing zeros).
import { formatUsd, type Decimal } from '../money/index.ts';
import { TOKENS, tokenDef, type TokenSymbol } from '../tokens/index.ts';
import type { Chain } from '../config.ts';
import { isPriced, type MarketData } from '../market/index.ts';
import { CONVERSION_FEE_BPS, minimumPriceUsd, quotePayment, type ConversionRoute, type MerchantPricing, type PriceRefusal } from './pricing.ts';

export interface TokenInfo {
  token: TokenSymbol;
  chain: Chain;
  min_usd: string;
  network_fee_usd: string;
  network_fee_bps?: number;
  fee_note: string;
  /** Only in token_options, and only when fees are passed on. */
  amount_due_usd?: string;
}

/** What a listing needs besides the coins: market, merchant settings, routes, finality. */
export interface ListingContext {
  market: MarketData;
  merchant: MerchantPricing;
  routeOf: (token: TokenSymbol) => ConversionRoute;
  /** Confirmations required per chain (config.confirmations). */
  confirmations: Readonly<Record<Chain, number>>;
}

/** The finality note of a chain: "final after 3 confirmations". */
export function feeNote(confirmations: number): string {
  return `final after ${confirmations} confirmation${confirmations === 1 ? '' : 's'}`;
}

/**
 * min_usd of a listing: the least price creation takes in the coin for this merchant (spec 2
 * TokenInfo "current minimum payment"; spec 1 Fees: creating below it is refused), so a price a
 * listing shows is never refused. Fees passed on and not hidden: the coin's own minimum (an
 * exchange's is met by extra_usd). Fees kept by the merchant: also twice the network fee; and
 * with them kept or hidden, a coin converted across networks takes no less than the price that
 * reaches the exchange minimum, which the refusal names (lowestTaken). When no price will do (the
 * fees leave nothing), the coin's own figure stays.
 */
function listedMinimum(token: TokenSymbol, ctx: ListingContext): Decimal {
  const minimum = minimumPriceUsd(token, ctx.market, ctx.merchant);
  // the default account's case (and every listing's hot path): nothing more to price
  if (ctx.merchant.feesPaidByCustomer && !ctx.merchant.hideBelowMinimum) return minimum;
  const at = quoteIn(minimum, token, ctx);
  if (at.ok) return minimum;
  const lowest = lowestTaken(at, token, ctx);
  return lowest.taken && lowest.refusal.minimumUsd ? lowest.refusal.minimumUsd : minimum;
}

/** The listing entry of one coin, without an amount. */
export function tokenInfo(token: TokenSymbol, ctx: ListingContext): TokenInfo {
  const { chain } = tokenDef(token);
  const m = ctx.market[token];
  const bps = CONVERSION_FEE_BPS[ctx.routeOf(token)];
  return {
    token,
    chain,
    min_usd: formatUsd(listedMinimum(token, ctx)),
    network_fee_usd: formatUsd(m.networkFeeUsd),
    ...(bps !== undefined ? { network_fee_bps: bps } : {}),
    fee_note: feeNote(ctx.confirmations[chain]),
  };
}

/**
 * The given coins that can be priced now, in catalog order (the merchant's enabled_tokens may be
 * stored in any order). A live coin with no current price leaves every listing until a rate returns.
 */
const listable = (tokens: readonly TokenSymbol[], ctx: ListingContext): TokenSymbol[] =>
  TOKENS.filter((t) => tokens.includes(t) && isPriced(ctx.market[t]));

/** The price of a payment of `usdAmount` in `token` with the listing's market, settings and route. */
const quoteIn = (usdAmount: Decimal, token: TokenSymbol, ctx: ListingContext) =>
  quotePayment({ usdAmount, token, merchant: ctx.merchant, market: ctx.market, route: ctx.routeOf(token) });

/**
 * token_options of a payment of `usdAmount` with no coin yet: the enabled coins that accept this
 * amount (quotePayment says ok), each with its own amount_due_usd (extra included) when fees are
 * passed on. Coins too small for the amount are left out.
 */
export function tokenOptions(usdAmount: Decimal, enabled: readonly TokenSymbol[], ctx: ListingContext): TokenInfo[] {
  const options: TokenInfo[] = [];
  for (const token of listable(enabled, ctx)) {
    const priced = quoteIn(usdAmount, token, ctx);
    if (!priced.ok) continue;
    const info = tokenInfo(token, ctx);
    options.push(ctx.merchant.feesPaidByCustomer ? { ...info, amount_due_usd: formatUsd(priced.quote.amountDueUsd) } : info);
  }
  return options;
}

/**
 * The refusal that names the lowest price `token` takes, from its refusal at some price (`first`):
 * a price under the coin's own minimum may still be short of its exchange minimum, so the price a
 * refusal names is priced in turn until one is taken (`taken`). When no price will do (the fees
 * leave nothing, whatever the price), the refusal that says so; failing all else, `first`.
 */
function lowestTaken(first: PriceRefusal, token: TokenSymbol, ctx: ListingContext): { refusal: PriceRefusal; taken: boolean } {
  // two kinds of minimum (the coin's own, the exchange's): each step names a higher price
  for (let refusal = first, step = 0; refusal.minimumUsd && step < 3; step++) {
    const at = quoteIn(refusal.minimumUsd, token, ctx);
    if (at.ok) return { refusal, taken: true };
    // fees that leave nothing at one price leave nothing at any: no price is worth naming
    if (at.reason === 'fees_exceed_price') return { refusal: at, taken: false };
    if (!at.minimumUsd?.gt(refusal.minimumUsd)) break;
    refusal = at;
  }
  return { refusal: first, taken: false };
}

/**
 * The refusal of a payment in the coin named (creation with `token`, the coin choice), given its
 * refusal at the payment's price: the one naming the lowest price the coin takes, so the price a
 * refusal names is never refused in turn (`amount_usd is below the minimum payment in ETH: $3 right
 * now` only when $3 is taken; else the exchange's `minimum payment in ETH is $17.7 right now (…)`).
 */
export function coinRefusal(refused: PriceRefusal, token: TokenSymbol, ctx: ListingContext): PriceRefusal {
  return lowestTaken(refused, token, ctx).refusal;
}

/**
 * Why a payment of `usdAmount` with no coin has no token_options: the refusal of the coin that takes
 * the lowest price (the first in catalog order on a tie), naming that price; when no price will do
 * for any coin, the first coin's refusal; undefined when a coin takes `usdAmount` or none of
 * `enabled` can be priced now.
 */
export function noOptionRefusal(usdAmount: Decimal, enabled: readonly TokenSymbol[], ctx: ListingContext): PriceRefusal | undefined {
  let best: PriceRefusal | undefined;
  let first: PriceRefusal | undefined;
  for (const token of listable(enabled, ctx)) {
    const at = quoteIn(usdAmount, token, ctx);
    if (at.ok) return undefined;
    const coin = lowestTaken(at, token, ctx);
    if (!coin.taken) first ??= coin.refusal;
    else if (!best || coin.refusal.minimumUsd!.lt(best.minimumUsd!)) best = coin.refusal;
  }
  return best ?? first;
}

/**
 * GET /v1/tokens and GET /tokens: every enabled coin, or with the `amount_usd` filter only those
 * that accept that amount (then shaped like token_options).
 */
export function listTokens(enabled: readonly TokenSymbol[], ctx: ListingContext, amountUsd?: Decimal): TokenInfo[] {
  if (amountUsd !== undefined) return tokenOptions(amountUsd, enabled, ctx);
  return listable(enabled, ctx).map((t) => tokenInfo(t, ctx));
}
