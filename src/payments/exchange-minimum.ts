// The exchange minimum of a coin converted across networks (spec "Payment behaviour").
//
// The figure compared is what reaches the exchange: the customer's payment (amount_due_usd) less
// the service fee (max(fee_bps share, $0.20)) and the fixed network fee of moving it there. It
// must be at least 1.1 × exchange_min_usd (the minimum "with a tenth to spare"). The conversion
// fee itself is taken by the exchange out of what it receives, so it does not lower the figure.
import { dec, ROUND_DOWN, usdUp, type Decimal } from '../money/index.ts';
import { BPS, larger, MIN_SERVICE_FEE_USD, serviceFeeUsd } from './service-fee.ts';

export const EXCHANGE_MARGIN = dec('1.1');
const CENT = dec('0.01');

/** Dollars reaching the exchange from a payment of `amountDueUsd`. */
export function exchangeInputUsd(amountDueUsd: Decimal, networkFeeUsd: Decimal, feeBps: number): Decimal {
  return amountDueUsd.minus(serviceFeeUsd(amountDueUsd, feeBps)).minus(networkFeeUsd);
}

/**
 * The least amount_due_usd (whole cents) whose exchange input reaches 1.1 × exchange_min_usd:
 * max((target + fee) / (1 - fee_bps/10000), target + fee + 0.20), rounded up to the cent. A
 * payment in cents passes exactly when it is at least this. Undefined when fee_bps is 100%.
 */
export function exchangeFloorUsd(exchangeMinUsd: Decimal, networkFeeUsd: Decimal, feeBps: number): Decimal | undefined {
  const keep = dec(1).minus(dec(feeBps).div(BPS));
  if (keep.lte(0)) return undefined;
  const needed = exchangeMinUsd.mul(EXCHANGE_MARGIN).plus(networkFeeUsd);
  return usdUp(larger(needed.div(keep), needed.plus(MIN_SERVICE_FEE_USD)));
}

/**
 * The lowest price in whole cents whose amount due reaches `floor` (a whole-cent figure), for a
 * non-decreasing `dueOf` that never asks less than the price: so the answer lies in
 * [1 cent, floor] and a binary search over cents finds it.
 */
export function lowestPriceReaching(floor: Decimal, dueOf: (price: Decimal) => Decimal | undefined): Decimal {
  let lo = 1n;
  let hi = BigInt(floor.div(CENT).toDecimalPlaces(0, ROUND_DOWN).toFixed(0));
  if (hi < lo) return CENT;
  const reaches = (cents: bigint): boolean => {
    const due = dueOf(dec(cents).mul(CENT));
    return due !== undefined && due.gte(floor);
  };
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    if (reaches(mid)) hi = mid; else lo = mid + 1n;
  }
  return dec(lo).mul(CENT);
}
