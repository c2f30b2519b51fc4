// Giving a payment its coin: the price in that coin (quotePayment with the settings kept at
// creation), a never-used deposit address (an XRP payment shares the service address and gets its
// own destination tag) and the 15-minute deadline. Used by creation with `token` and by the coin
// choice of the checkout and /v1 routes.
import { badRequest, conflict } from '../platform/errors.ts';
import { dec, type Decimal } from '../money/index.ts';
import { isToken, tokenDef, TOKENS, type TokenSymbol } from '../tokens/index.ts';
import { xrpServiceAddress, type WalletSeed } from '../chains/addresses/index.ts';
import type { CapturedSettings } from '../accounts/index.ts';
import { isPriced, noCurrentPrice } from '../market/index.ts';
import { canChooseCoin, coinRefusal, noOptionRefusal, quotePayment, tokenOptions, type PaymentStatus, type PriceRefusal, type TokenInfo } from './pure.ts';
import type { Catalog } from './catalog.ts';
import type { Executor } from '../platform/db/index.ts';
import type { NewPaymentRow, PaymentRow } from './schema.ts';
import type { NumberReserve } from './repository.ts';
import type { DepositAddressReserve } from './address-reserve.ts';

export const COIN_DEADLINE_MS = 15 * 60 * 1000;
export const CHOOSE_DEADLINE_MS = 60 * 60 * 1000;

export const TOKEN_REQUIRED = 'token is required';
export const NOT_AN_OPTION = "token is not one of this payment's options";
export const NO_LONGER_PAYABLE = 'this payment can no longer be paid';
export const COIN_ALREADY_CHOSEN = 'the coin for this payment has already been chosen';
export const notEnabled = (t: string): string => `not enabled for your account: ${t}`;
export const noNode = (t: TokenSymbol): string => `${t} cannot be paid in live mode right now: no ${tokenDef(t).chain} node is configured`;
/** A live coin whose token contract has no code on its chain's node (CONTRACT.md TOKEN_CONTRACTS). */
export const noContract = (t: TokenSymbol): string => `${t} cannot be paid in live mode right now: its token contract has no code on the ${tokenDef(t).chain} node`;

export interface CoinDeps {
  catalog: Catalog;
  seed: WalletSeed;
  numbers: NumberReserve;
  addresses: DepositAddressReserve;
}

export interface PricedPayment {
  merchantId: string;
  settings: CapturedSettings;
  livemode: boolean;
  usdAmount: Decimal;
}

/** The coin's fields of the payment row (no transaction needed: the address is never handed out twice); 400 with the pricing message naming the lowest price the coin takes when the amount does not fit, 503 while the coin has no current price. */
export async function coinFields(deps: CoinDeps, p: PricedPayment, token: TokenSymbol, now: Date): Promise<Partial<NewPaymentRow> & { expiresAt: Date }> {
  const ctx = await deps.catalog.pricingContext(p.merchantId, p.settings, p.livemode, now, p.usdAmount);
  // A live coin with no current price is refused (503) before anything is priced from its figures.
  if (!isPriced(ctx.market[token])) throw noCurrentPrice(token);
  const priced = quotePayment({ usdAmount: p.usdAmount, token, merchant: ctx.merchant, market: ctx.market, route: ctx.routeOf(token) });
  // the refusal names the lowest price the coin takes, an exchange minimum included (never its own
  // minimum when that price would be refused in turn)
  if (!priced.ok) throw badRequest(coinRefusal(priced, token, ctx).message);
  const q = priced.quote;
  const chain = tokenDef(token).chain;
  let address: string;
  let addressIndex: number | null = null;
  let destinationTag: number | null = null;
  if (chain === 'xrp') {
    address = xrpServiceAddress(deps.seed, p.livemode).address;
    destinationTag = await deps.numbers.destinationTag(p.livemode);
  } else {
    ({ index: addressIndex, address } = await deps.addresses.next(chain, p.livemode));
  }
  return {
    token, chain, depositAddress: address, addressIndex, destinationTag,
    amountDueUsd: q.amountDueUsd.toFixed(),
    extraUsd: q.extraUsd ? q.extraUsd.toFixed() : null,
    cryptoAmount: q.cryptoAmount,
    rateLocked: q.rateLocked.toFixed(),
    networkFee: q.networkFee,
    networkFeeUsd: q.networkFeeUsd.toFixed(),
    networkFeeBps: q.networkFeeBps ?? null,
    expiresAt: new Date(now.getTime() + COIN_DEADLINE_MS),
  };
}

/** The coins this payment may still be paid in: its `tokens` subset of the enabled coins, available in its mode. */
export function allowedCoins(p: Pick<PaymentRow, 'allowedTokens' | 'settings' | 'livemode'>, catalog: Catalog): TokenSymbol[] {
  return catalog.offered(p.settings, p.livemode).filter((t) => !p.allowedTokens || p.allowedTokens.includes(t));
}

/** token_options of a payment with no coin (recomputed from the current market); `ex`: a transaction the caller holds. */
export async function optionsOf(p: PaymentRow, catalog: Catalog, now: Date, ex?: Executor): Promise<TokenInfo[]> {
  return (await optionsOrRefusal(p, catalog, now, ex)).options;
}

/**
 * token_options of a payment with no coin and, when there is none, why, from the same pricing
 * context: the refusal naming the lowest price one of its coins takes (undefined when none of
 * `coins`, the payment's allowed coins, can be priced now).
 */
export async function optionsOrRefusal(p: PaymentRow, catalog: Catalog, now: Date, ex?: Executor): Promise<{ options: TokenInfo[]; coins: TokenSymbol[]; refusal?: PriceRefusal }> {
  const usdAmount = dec(p.usdAmount);
  const ctx = await catalog.pricingContext(p.merchantId, p.settings, p.livemode, now, usdAmount, ex);
  const coins = allowedCoins(p, catalog);
  const options = tokenOptions(usdAmount, coins, ctx);
  return { options, coins, ...(options.length === 0 ? { refusal: noOptionRefusal(usdAmount, coins, ctx) } : {}) };
}

/** The checks of a coin choice before any change, in the order of spec 7; returns the coin. */
export function checkChoice(p: PaymentRow, input: unknown, catalog: Catalog, now: Date): TokenSymbol {
  if (typeof input !== 'string' || input.trim() === '') throw badRequest(TOKEN_REQUIRED);
  if (p.token !== '') throw conflict(COIN_ALREADY_CHOSEN);
  if (!canChooseCoin(p.status as PaymentStatus, false) || now.getTime() >= p.expiresAt.getTime()) throw badRequest(NO_LONGER_PAYABLE);
  const token = input.trim();
  if (!isToken(token) || !allowedCoins(p, catalog).includes(token)) throw badRequest(NOT_AN_OPTION);
  return token;
}

export { TOKENS };
