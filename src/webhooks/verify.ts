// The receiver's side of spec 6.1, for merchants to copy or import: check the signature of the raw
// bytes first, then the clock, and only then parse JSON. Every refusal names its reason so a
// receiver can log it before answering 400 (which the gateway retries).
import crypto from 'node:crypto';
import { SIGNATURE_VERSION, signatureDigest } from './signing.ts';

export const VERIFY_MISSING_HEADER = 'missing signature header';
export const VERIFY_MISSING_TIMESTAMP = 'signature header has no t';
export const VERIFY_MISSING_SIGNATURE = 'signature header has no v1';
export const VERIFY_BAD_TIMESTAMP = 'signature t is not unix seconds';
export const VERIFY_MISMATCH = 'signature does not match';
export const VERIFY_TOO_OLD = 'signature t is outside the tolerance';
export const VERIFY_BAD_JSON = 'body is not JSON';

/** Spec part 8: a receiver tolerates 5 minutes between `t` and its clock. */
export const DEFAULT_TOLERANCE_SEC = 300;

export interface VerifiedEvent {
  id: string;
  type: string;
  livemode: boolean;
  created_at: string;
  data: unknown;
}

export type VerifyResult = { ok: true; event: VerifiedEvent } | { ok: false; reason: string };

export interface VerifyOptions {
  toleranceSec?: number;
  /** The receiver's clock; defaults to the system clock. */
  now?: Date;
}

interface ParsedHeader {
  t: string | undefined;
  v1: string[];
}

// Split on commas, then each part on its first '='. Unknown keys are ignored so a later scheme can
// be added beside v1; several v1 values are allowed and any of them may match.
function parseHeader(header: string): ParsedHeader {
  const parsed: ParsedHeader = { t: undefined, v1: [] };
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && parsed.t === undefined) parsed.t = value;
    else if (key === SIGNATURE_VERSION && value !== '') parsed.v1.push(value);
  }
  return parsed;
}

function constantTimeHexEqual(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  // Compare equal lengths only (timingSafeEqual throws otherwise); the length of a hex digest is public.
  if (a.length !== b.length) return false;
  return crypto.timingSafeEqual(a, b);
}

export function verifyWebhook(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): VerifyResult {
  const toleranceSec = options.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  if (typeof header !== 'string' || header.trim() === '') return { ok: false, reason: VERIFY_MISSING_HEADER };
  const { t, v1 } = parseHeader(header);
  if (t === undefined || t === '') return { ok: false, reason: VERIFY_MISSING_TIMESTAMP };
  if (v1.length === 0) return { ok: false, reason: VERIFY_MISSING_SIGNATURE };
  if (!/^\d{1,15}$/.test(t)) return { ok: false, reason: VERIFY_BAD_TIMESTAMP };
  const seconds = Number(t);

  const expected = signatureDigest(secret, rawBody, t);
  let matched = false;
  for (const candidate of v1) matched = constantTimeHexEqual(expected, candidate) || matched;
  if (!matched) return { ok: false, reason: VERIFY_MISMATCH };

  const nowSec = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSec - seconds) > toleranceSec) return { ok: false, reason: VERIFY_TOO_OLD };

  let event: VerifiedEvent;
  try {
    const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
    event = JSON.parse(text) as VerifiedEvent;
  } catch {
    return { ok: false, reason: VERIFY_BAD_JSON };
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event)) return { ok: false, reason: VERIFY_BAD_JSON };
  return { ok: true, event };
}
