// Input checks shared by sign-up, sign-in and team routes, with the spec's messages.
import { badRequest } from '../platform/errors.ts';
import { MIN_PASSWORD_LENGTH } from './passwords.ts';

export const INVALID_EMAIL = 'invalid email address';
export const PASSWORD_TOO_SHORT = 'password must be at least 8 characters';
export const EMAIL_TAKEN = 'email already registered';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A lower-cased email, or 400 `invalid email address`. */
export function requireEmail(v: unknown): string {
  if (typeof v !== 'string' || v.length > 254 || !EMAIL.test(v.trim())) throw badRequest(INVALID_EMAIL);
  return v.trim().toLowerCase();
}

export function requireNewPassword(v: unknown, message = PASSWORD_TOO_SHORT): string {
  if (typeof v !== 'string' || [...v].length < MIN_PASSWORD_LENGTH || v.length > 1024) throw badRequest(message);
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
