import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, RequestFingerprints } from './fingerprint.ts';

const SECRET = 'fingerprint-test-secret-0123456789abcdef';
const fingerprints = new RequestFingerprints(SECRET);
const fp = (method: string, url: string, body: unknown) => fingerprints.of(method, url, body).current;

describe('request fingerprint', () => {
  it('ignores the order of object keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(fingerprints.of('POST', '/v1/payments', { a: 1, b: '2' })).toEqual(fingerprints.of('POST', '/v1/payments', { b: '2', a: 1 }));
  });

  it('canonical JSON parses back to the same value', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      expect(JSON.parse(canonicalJson(v) || 'null')).toEqual(JSON.parse(JSON.stringify(v) ?? 'null'));
    }));
  });

  it('tells apart a different body, path, query or method', () => {
    const base = fp('POST', '/v1/payments', { amount_usd: '10' });
    expect(fp('POST', '/v1/payments', { amount_usd: '10.0' })).not.toBe(base);
    expect(fp('POST', '/v1/payments/batch', { amount_usd: '10' })).not.toBe(base);
    expect(fp('POST', '/v1/payments?x=1', { amount_usd: '10' })).not.toBe(base);
    expect(fp('PUT', '/v1/payments', { amount_usd: '10' })).not.toBe(base);
    expect(fp('POST', '/v1/payments', undefined)).not.toBe(fp('POST', '/v1/payments', {}));
  });

  it('tells apart the stores of the keys that send it, and a store from none', () => {
    const of = (store: string | null) => fingerprints.of('POST', '/v1/payments', { amount_usd: '10' }, store).current;
    expect(new Set([of(null), of('sto_a'), of('sto_b')]).size).toBe(3);
    expect(fingerprints.of('POST', '/v1/payments', { amount_usd: '10' }).current).toBe(of(null));
  });

  // Bodies carry passwords: a plain hash in the table could be tested against guesses.
  it('is keyed: an HMAC under a key derived from AUTH_SECRET, not a plain SHA-256 of the request', () => {
    const body = { password: 'correct-horse-9' };
    const text = `POST /merchant/payout-addresses\n${canonicalJson(body)}`;
    const plain = crypto.createHash('sha256').update(text).digest('hex');
    const ours = fingerprints.of('POST', '/merchant/payout-addresses', body);
    expect(ours.current).toMatch(/^[0-9a-f]{64}$/);
    expect(ours.current).not.toBe(plain);
    // not an HMAC under AUTH_SECRET itself either: a key of its own
    expect(ours.current).not.toBe(crypto.createHmac('sha256', SECRET).update(text).digest('hex'));
    expect(new RequestFingerprints(`${SECRET}-other`).of('POST', '/merchant/payout-addresses', body).current).not.toBe(ours.current);
    // what rows written before the change hold, still compared with until they expire
    expect(ours.legacy).toBe(plain);
  });
});
