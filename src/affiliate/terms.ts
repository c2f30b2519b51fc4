// Pure rules of the referral program: how long a referral earns, what a commission is worth, when
// a referral payout is due, and the minimum payout. Property-tested in terms.property.test.ts.
import { dec, ROUND_DOWN, type Decimal } from '../money/index.ts';
import { TOKEN_DEFS } from '../tokens/index.ts';

/** Commissions, the referral balance and its payouts are in USDT on Tron. */
export const REFERRAL_TOKEN = 'USDT_TRC20' as const;
export const REFERRAL_CHAIN = TOKEN_DEFS[REFERRAL_TOKEN].chain;
export const REFERRAL_DECIMALS = TOKEN_DEFS[REFERRAL_TOKEN].decimals;

const DAY_MS = 86_400_000;

/**
 * `months` calendar months after `from` in UTC, same time of day; a day the month lacks becomes
 * its last day (Jan 31 + 1 month = Feb 28 or 29).
 */
export function addMonths(from: Date, months: number): Date {
  const y = from.getUTCFullYear();
  const m = from.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m, Math.min(from.getUTCDate(), lastDay),
    from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds()));
}

/** When a referral stops earning: null (as long as the merchant uses the service) for 0 months. */
export const earnsUntil = (signedUpAt: Date, months: number): Date | null => (months === 0 ? null : addMonths(signedUpAt, months));

const isWeekend = (d: Date): boolean => d.getUTCDay() === 0 || d.getUTCDay() === 6;

/** `days` business days after `from`, same UTC time of day, Saturdays and Sundays skipped. */
export function businessDaysAfter(from: Date, days: number): Date {
  let t = from.getTime();
  for (let left = days; left > 0;) {
    t += DAY_MS;
    if (!isWeekend(new Date(t))) left--;
  }
  return new Date(t);
}

/**
 * A commission: `fee_usd` × `rate_bps` / 10000, rounded down to 6 decimals, as base units of
 * USDT_TRC20 (one token is one dollar).
 */
export function commissionUnits(feeUsd: Decimal, rateBps: number): bigint {
  const amount = feeUsd.mul(rateBps).div(10_000).toDecimalPlaces(REFERRAL_DECIMALS, ROUND_DOWN);
  return BigInt(amount.mul(dec(10).pow(REFERRAL_DECIMALS)).toFixed(0));
}

/** Spec 7: `the minimum payout is 50.00 USDT_TRC20` (the minimum with two decimals). */
export const minPayoutMessage = (minUsd: string): string => `the minimum payout is ${dec(minUsd).toFixed(2)} ${REFERRAL_TOKEN}`;
