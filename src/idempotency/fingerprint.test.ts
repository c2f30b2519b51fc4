import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, requestFingerprint } from './fingerprint.ts';

describe('request fingerprint', () => {
  it('ignores the order of object keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(requestFingerprint('POST', '/v1/payments', { a: 1, b: '2' })).toBe(requestFingerprint('POST', '/v1/payments', { b: '2', a: 1 }));
  });

  it('canonical JSON parses back to the same value', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      expect(JSON.parse(canonicalJson(v) || 'null')).toEqual(JSON.parse(JSON.stringify(v) ?? 'null'));
    }));
  });

  it('tells apart a different body, path, query or method', () => {
    const base = requestFingerprint('POST', '/v1/payments', { amount_usd: '10' });
    expect(requestFingerprint('POST', '/v1/payments', { amount_usd: '10.0' })).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/payments/batch', { amount_usd: '10' })).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/payments?x=1', { amount_usd: '10' })).not.toBe(base);
    expect(requestFingerprint('PUT', '/v1/payments', { amount_usd: '10' })).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/payments', undefined)).not.toBe(requestFingerprint('POST', '/v1/payments', {}));
  });
});
