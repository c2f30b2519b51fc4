// Input checks shared by sign-up, sign-in and team routes, with the spec's messages.
import { badRequest } from '../platform/errors.ts';
import { MIN_PASSWORD_LENGTH } from './passwords.ts';
import { longerThan } from '../platform/fields.ts';

export const INVALID_EMAIL = 'invalid email address';
export const PASSWORD_TOO_SHORT = 'password must be at least 8 characters';
export const EMAIL_TAKEN = 'email already registered';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A lower-cased email, or 400 `invalid email address`. */
export function requireEmail(v: unknown): string {
  if (typeof v !== 'string' || v.length > 254 || !EMAIL.test(v.trim())) throw badRequest(INVALID_EMAIL);
  return v.trim().toLowerCase();
}

/** The upper limit of a new password (the spec gives none; README "Decisions where the spec is silent"). */
export const MAX_PASSWORD_LENGTH = 1024;
export const PASSWORD_TOO_LONG = 'password must be at most 1024 characters';

/**
 * A new password (signup, team member, password change, invitation): at least 8 characters (spec
 * 8), at most 1024, each refusal with its own message (an over-long one is not "at least 8");
 * counted in characters (code points), as the other text limits are.
 */
export function requireNewPassword(v: unknown, message = PASSWORD_TOO_SHORT): string {
  if (typeof v !== 'string') throw badRequest(message);
  // measured on the UTF-16 length first, so a huge body is not split into code points
  if (v.length > 2 * MAX_PASSWORD_LENGTH || longerThan(v, MAX_PASSWORD_LENGTH)) throw badRequest(PASSWORD_TOO_LONG);
  if ([...v].length < MIN_PASSWORD_LENGTH) throw badRequest(message);
  return v;
}

/** The request body as an object; anything else is treated as an empty body. */
export function bodyObject(body: unknown): Record<string, unknown> {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/** Postgres unique violation (a concurrent insert won the race). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}
