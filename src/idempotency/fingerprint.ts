// What makes two requests "the same request" for an Idempotency-Key: the store of the key that
// sends it (a storefront key's answer is its store's), method, path with query, and the JSON body
// with object keys in a canonical order (a client that re-serialises its body in another key order
// is still repeating itself). Bodies carry passwords (a password re-check), so
// what is stored is an HMAC under a key of its own derived from AUTH_SECRET, never a plain hash
// anyone reading the table could test guesses against.
import crypto from 'node:crypto';
import { deriveKey } from '../webhooks/secret-box.ts';

/** JSON with object keys sorted at every depth; arrays keep their order. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * A request's fingerprint as stored now (`current`), and as it was stored before fingerprints were
 * keyed (`legacy`, a plain SHA-256): a row written before the upgrade still matches its repeat
 * until it expires. `legacy` (and every use of it) can go once no row is older than the upgrade
 * plus IDEMPOTENCY_TTL_MS (24 hours).
 */
export interface RequestFingerprint {
  current: string;
  legacy: string;
}

const PURPOSE = { salt: 'gateway idempotency keys', info: 'request fingerprint hmac v1' };

export class RequestFingerprints {
  readonly #key: Buffer;

  constructor(authSecret: string) {
    this.#key = deriveKey(authSecret, PURPOSE);
  }

  /**
   * HMAC-SHA256 (hex) of the caller's store (null: an account-wide key or the dashboard), method,
   * URL and canonical body; and the legacy SHA-256, which had no store.
   */
  of(method: string, url: string, body: unknown, storeId: string | null = null): RequestFingerprint {
    const text = `${method} ${url}\n${canonicalJson(body)}`;
    return {
      current: crypto.createHmac('sha256', this.#key).update(`${storeId ?? ''}\n${text}`).digest('hex'),
      legacy: crypto.createHash('sha256').update(text).digest('hex'),
    };
  }
}
