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
