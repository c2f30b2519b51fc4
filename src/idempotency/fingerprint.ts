// What makes two requests "the same request" for an Idempotency-Key: method, path with query, and
// the JSON body with object keys in a canonical order (a client that re-serialises its body in
// another key order is still repeating itself). Pure.
import crypto from 'node:crypto';

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

/** SHA-256 (hex) of method, URL and canonical body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return crypto.createHash('sha256').update(`${method} ${url}\n${canonicalJson(body)}`).digest('hex');
}
