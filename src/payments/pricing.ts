// What the customer is asked for, in dollars and in the coin (spec part 1 "Fees" and "Payment
// behaviour"; CONTRACT.md "Conventions" for rounding). Pure: the market data, the merchant's
// settings captured at creation and the coin's conversion route all come in as values.
//
// Checks, in order (the first failing one is the refusal, each a 400 with its exact message):
//  1. the price (usd_amount) is at least the coin's minimum: min_usd, and with fees kept by the
//     merchant also twice network_fee_usd → `amount_usd is below the minimum payment in ETH: $3
//     right now` (the spec only says "creating below the token's current min_usd" is a 400);
//  2. a coin routed `exchange` leaves the exchange 1.1 × exchange_min_usd (exchange-minimum.ts says
//     which figure): fees passed on and not hidden → the customer is asked the difference
//     (`extra_usd`); otherwise → `minimum payment in BTC is $21.88 right now (…)`, the amount
//     being the lowest price that would be accepted.
// A refusal given to a caller names the lowest price the coin takes (token-info.ts lowestTaken:
// coinRefusal, noOptionRefusal): under both minimums, the exchange's price, not a min_usd that
// would be refused in turn.
import { dec, formatUsd, quotientUnitsRoundedUp, usdUp, type Decimal } from '../money/index.ts';
import { tokenDef, type TokenSymbol } from '../tokens/index.ts';
import type { Chain } from '../config.ts';
import type { MarketData } from '../market/index.ts';
import { exchangeFloorUsd, lowestPriceReaching } from './exchange-minimum.ts';
import { BPS, larger, MIN_SERVICE_FEE_USD } from './service-fee.ts';

/**
 * How a deposit in the coin reaches the merchant: as it is (`none`; always in test mode), swapped
 * on its own network (`swap`), converted across networks by an exchange (`exchange`), or bought
 * by the service for a custodial/scheduled balance (`platform`).
 */
export type ConversionRoute = 'none' | 'swap' | 'exchange' | 'platform';

/** Conversion fee share of each route (spec "Fees"); `none` has no share and no network_fee_bps. */
export const CONVERSION_FEE_BPS: Readonly<Record<ConversionRoute, number | undefined>> = {
  none: undefined, swap: 50, exchange: 50, platform: 150,
};


/** Merchant settings a payment keeps from its creation. */
export interface MerchantPricing {
  feeBps: number;
  feesPaidByCustomer: boolean;
  hideBelowMinimum: boolean;
}

export interface PriceRequest {
  /** The merchant's price (`usd_amount`), at most 2 decimals. */
  usdAmount: Decimal;
  token: TokenSymbol;
  merchant: MerchantPricing;
  market: MarketData;
  route: ConversionRoute;
}

export interface PaymentQuote {
  token: TokenSymbol;
  chain: Chain;
  usdAmount: Decimal;
  /** What the customer pays, extra included; rounded up to the cent. */
  amountDueUsd: Decimal;
  /** Added to reach the exchange minimum (fees passed on, not hidden); absent when none. */
  extraUsd?: Decimal;
  networkFeeUsd: Decimal;
  networkFeeBps?: number;
  rateLocked: Decimal;
  /** amount_due_usd / rate rounded up at the coin's precision, in base units. */
  cryptoAmount: bigint;
  /** network_fee_usd / rate rounded up at the coin's precision, in base units. */
  networkFee: bigint;
}

export type RefusalReason = 'below_minimum' | 'below_exchange_minimum' | 'fees_exceed_price';
export interface PriceRefusal {
  ok: false;
  reason: RefusalReason;
  /** The exact 400 message. */
  message: string;
  /** The least price (`amount_usd`) that would be accepted, when there is one. */
  minimumUsd?: Decimal;
}
export type PriceResult = { ok: true; quote: PaymentQuote } | PriceRefusal;

export const belowMinimumMessage = (token: TokenSymbol, minUsd: Decimal): string =>
  `amount_usd is below the minimum payment in ${token}: $${formatUsd(minUsd)} right now`;
export const exchangeMinimumMessage = (token: TokenSymbol, minUsd: Decimal): string =>
  `minimum payment in ${token} is $${formatUsd(minUsd)} right now (it is converted on its way to the merchant, and the exchange takes no less)`;
export const feesExceedPriceMessage = (token: TokenSymbol): string =>
  `the fees of a payment in ${token} leave nothing for the merchant`;

/**
 * Fees passed on: (usd_amount + network_fee_usd) / (1 - fee_bps/10000 - network_fee_bps/10000),
 * at least usd_amount + network_fee_usd + 0.20, rounded up to the cent. Undefined when the fee
 * shares reach 100% (no price covers them).
 */
export function amountDuePassedOn(usdAmount: Decimal, networkFeeUsd: Decimal, feeBps: number, networkFeeBps = 0): Decimal | undefined {
  const keep = keptShare(feeBps + networkFeeBps);
  if (keep.lte(0)) return undefined;
  const base = usdAmount.plus(networkFeeUsd);
  return usdUp(larger(base.div(keep), base.plus(MIN_SERVICE_FEE_USD)));
}

// 1 - bps/10000 for each fee share met (a few: the merchants' fee_bps plus each route's share);
// it is the same Decimal every time, so creation does not build it again per payment.
const keptShares = new Map<number, Decimal>();
function keptShare(bps: number): Decimal {
  let keep = keptShares.get(bps);
  if (keep === undefined) {
    keep = dec(1).minus(dec(bps).div(BPS));
    if (keptShares.size < 1000) keptShares.set(bps, keep);
  }
  return keep;
}

/**
 * The least price accepted in a coin before any exchange minimum: min_usd, and with fees kept by
 * the merchant also twice the network fee (so the fee never eats most of the payment).
 */
export function minimumPriceUsd(token: TokenSymbol, market: MarketData, merchant: MerchantPricing): Decimal {
  const m = market[token];
  return merchant.feesPaidByCustomer ? m.minUsd : larger(m.minUsd, m.networkFeeUsd.mul(2));
}

/** Prices a payment of `usdAmount` in `token`, or says why it cannot be made (exact 400 message). */
export function quotePayment(req: PriceRequest): PriceResult {
  const { usdAmount, token, merchant, market, route } = req;
  const m = market[token];
  const networkFeeBps = CONVERSION_FEE_BPS[route];
  const refuse = (reason: RefusalReason, message: string, minimumUsd?: Decimal): PriceRefusal =>
    ({ ok: false, reason, message, ...(minimumUsd ? { minimumUsd } : {}) });

  const minimum = minimumPriceUsd(token, market, merchant);
  if (usdAmount.lt(minimum)) return refuse('below_minimum', belowMinimumMessage(token, minimum), minimum);

  const baseDue = merchant.feesPaidByCustomer
    ? amountDuePassedOn(usdAmount, m.networkFeeUsd, merchant.feeBps, networkFeeBps)
    : usdUp(usdAmount);
  if (baseDue === undefined) return refuse('fees_exceed_price', feesExceedPriceMessage(token));

  let amountDueUsd = baseDue;
  let extraUsd: Decimal | undefined;
  if (route === 'exchange') {
    const floor = exchangeFloorUsd(m.exchangeMinUsd, m.networkFeeUsd, merchant.feeBps);
    if (floor === undefined) return refuse('fees_exceed_price', feesExceedPriceMessage(token));
    if (baseDue.lt(floor)) {
      if (merchant.feesPaidByCustomer && !merchant.hideBelowMinimum) {
        extraUsd = floor.minus(baseDue);
        amountDueUsd = floor;
      } else {
        const dueOf = (price: Decimal): Decimal | undefined => merchant.feesPaidByCustomer
          ? amountDuePassedOn(price, m.networkFeeUsd, merchant.feeBps, networkFeeBps)
          : price;
        const lowest = larger(lowestPriceReaching(floor, dueOf), minimum);
        return refuse('below_exchange_minimum', exchangeMinimumMessage(token, lowest), lowest);
      }
    }
  }

  const def = tokenDef(token);
  const inCoin = (usd: Decimal): bigint => quotientUnitsRoundedUp(usd, m.rate, def.precision, def.decimals);
  return {
    ok: true,
    quote: {
      token,
      chain: def.chain,
      usdAmount,
      amountDueUsd,
      ...(extraUsd ? { extraUsd } : {}),
      networkFeeUsd: m.networkFeeUsd,
      ...(networkFeeBps !== undefined ? { networkFeeBps } : {}),
      rateLocked: m.rate,
      cryptoAmount: inCoin(amountDueUsd),
      networkFee: inCoin(m.networkFeeUsd),
    },
  };
}
