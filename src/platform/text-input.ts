// Text fields a route stores or looks up: PostgreSQL text cannot hold the NUL character (a query
// carrying one fails), so such text is refused with a 400 naming the field before any query.
import { badRequest } from './errors.ts';
import { longerThan, nulMessage } from './fields.ts';

export { nulMessage };

/** Throws 400 `<field> must not contain NUL characters` when the string holds a NUL. */
export function refuseNul(field: string, v: string): string {
  if (v.includes('\u0000')) throw badRequest(nulMessage(field));
  return v;
}

/** A trimmed, non-empty text of at most `max` characters without NUL; otherwise 400 `message`. */
export function requireText(field: string, v: unknown, message: string, max = 1000): string {
  if (typeof v !== 'string' || v.trim() === '' || longerThan(v, max)) throw badRequest(message);
  return refuseNul(field, v.trim());
}

/** Free text an operator gives with a move (a payout's or settlement's note, a ledger adjustment's note). */
export const NOTE_MAX = 500;
/** A transaction id an operator records (a payout marked sent or paid). */
export const TX_ID_MAX = 200;
export const tooLongMessage = (field: string, max: number): string => `${field} must be at most ${max} characters`;

/**
 * A trimmed, non-empty text without NUL: 400 `required` when absent or blank, 400
 * `<field> must be at most <max> characters` when longer (in code points, once trimmed).
 */
export function requireCapped(field: string, v: unknown, required: string, max: number): string {
  if (typeof v !== 'string' || v.trim() === '') throw badRequest(required);
  const text = v.trim();
  if (longerThan(text, max)) throw badRequest(tooLongMessage(field, max));
  return refuseNul(field, text);
}
