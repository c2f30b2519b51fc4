// Checks of free-form fields shared by the dashboard's newer rooms (support, links, customers), with
// one clear 400 message each. PostgreSQL text and jsonb cannot hold the NUL character, so it is
// refused here rather than by the database (which would answer a 500).
import { badRequest } from './errors.ts';

export const METADATA_MAX_BYTES = 8192;
export const nulMessage = (name: string): string => `${name} must not contain NUL characters`;
export const surrogateMessage = (name: string): string => `${name} must not contain unpaired surrogates`;
export const textMessage = (name: string, max: number): string => `${name} must be a string of at most ${max} characters`;
export const METADATA_NOT_OBJECT = 'metadata must be an object';
export const METADATA_TOO_LARGE = `metadata must be at most ${METADATA_MAX_BYTES} bytes of JSON`;

export const present = (v: unknown): boolean => v !== undefined && v !== null;

/**
 * More than `max` characters (code points, so an emoji is one). A string's UTF-16 length is never
 * less than its count of code points, so a short one is answered without being split.
 */
export const longerThan = (s: string, max: number): boolean => s.length > max && [...s].length > max;

/** A list filter's value: absent (undefined or ''), or one of `values`; anything else 400 `message`. */
export function oneOfFilter<T extends string>(v: unknown, values: readonly T[], message: string): T | undefined {
  if (v === undefined || v === '') return undefined;
  if (typeof v === 'string' && (values as readonly string[]).includes(v)) return v as T;
  throw badRequest(message);
}

/** Throws 400 `<name> must not contain NUL characters` for a string (or any JSON) holding one. */
export function refuseNul(name: string, v: unknown): void {
  if (typeof v === 'string' ? v.includes('\u0000') : v !== null && typeof v === 'object' && JSON.stringify(v).includes('\\u0000')) {
    throw badRequest(nulMessage(name));
  }
}

/** Optional text of at most `max` characters, trimmed; undefined when absent, null when sent as null. */
export function optionalText(name: string, v: unknown, max: number): string | null | undefined {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string' || longerThan(v, max)) throw badRequest(textMessage(name, max));
  refuseNul(name, v);
  return v.trim();
}

/** An optional JSON object (metadata) of at most METADATA_MAX_BYTES; null when sent as null. */
export function optionalMetadata(v: unknown): Record<string, unknown> | null | undefined {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'object' || Array.isArray(v)) throw badRequest(METADATA_NOT_OBJECT);
  const json = JSON.stringify(v);
  if (Buffer.byteLength(json) > METADATA_MAX_BYTES) throw badRequest(METADATA_TOO_LARGE);
  refuseNul('metadata', v);
  return v as Record<string, unknown>;
}

/** Path ids are short URL-safe words: anything else names nothing (and never reaches SQL). */
export const ID_SHAPE = /^[A-Za-z0-9_-]{1,100}$/;
export const isIdShaped = (v: unknown): v is string => typeof v === 'string' && ID_SHAPE.test(v);
