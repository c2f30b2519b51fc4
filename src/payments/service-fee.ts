// The service fee (spec "Fees"): the merchant's fee_bps of the deposit, at least $0.20.
import { dec, type Decimal } from '../money/index.ts';

export const MIN_SERVICE_FEE_USD = dec('0.20');
export const BPS = 10_000;

/** Service fee in dollars on a payment worth `usd` (unrounded: callers round as their figure needs). */
export function serviceFeeUsd(usd: Decimal, feeBps: number): Decimal {
  const share = usd.mul(feeBps).div(BPS);
  return share.gte(MIN_SERVICE_FEE_USD) ? share : MIN_SERVICE_FEE_USD;
}

export const larger = (a: Decimal, b: Decimal): Decimal => (a.gte(b) ? a : b);
