// Dollar figures: Decimal with explicit rounding, per CONTRACT.md "Conventions".
//  - what the customer is asked for (`amount_due_usd`) is rounded UP to the cent;
//  - other cent figures (fees, volumes, settlement dollars) are rounded half-up;
//  - `usd_rate` is rounded half-up at 8 decimals.
import { decimalText, asDec, dec, plain, ROUND_HALF_UP, ROUND_UP, type Decimal, type DecimalInput } from './decimal.ts';

export const CENT_PLACES = 2;
export const RATE_PLACES = 8;

export const usdUp = (v: DecimalInput): Decimal => asDec(v).toDecimalPlaces(CENT_PLACES, ROUND_UP);
export const usdHalfUp = (v: DecimalInput): Decimal => asDec(v).toDecimalPlaces(CENT_PLACES, ROUND_HALF_UP);
export const rateHalfUp = (v: DecimalInput): Decimal => asDec(v).toDecimalPlaces(RATE_PLACES, ROUND_HALF_UP);

/** A dollar figure as the spec writes it: no trailing zeros ("25.5", "3000"). */
export const formatUsd = (v: DecimalInput): string => plain(asDec(v));

/** Exactly two decimals: `volume_usd` and `volume_usd_today` of the dashboard figures. */
export const formatUsd2 = (v: DecimalInput): string => usdHalfUp(v).toFixed(CENT_PLACES);

/**
 * The merchant's `amount_usd`: a JSON number or decimal string, greater than 0, at most 2
 * decimals, at most `max`. Returns the reason when it is not acceptable.
 */
export function parseAmountUsd(value: unknown, max: DecimalInput = '1000000000'): { ok: true; value: Decimal } | { ok: false; reason: string } {
  if (typeof value === 'number' && !Number.isFinite(value)) return { ok: false, reason: 'must be a number' };
  const text = decimalText(value);
  if (text === null) return { ok: false, reason: 'must be a number or a decimal string' };
  const d = dec(text);
  if (d.lte(0)) return { ok: false, reason: 'must be greater than 0' };
  if (d.decimalPlaces() > CENT_PLACES) return { ok: false, reason: 'has more than 2 decimals' };
  if (d.gt(max)) return { ok: false, reason: `must be at most ${plain(dec(max))}` };
  return { ok: true, value: d };
}
