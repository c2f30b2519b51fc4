import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { signatureDigest, signatureHeader, unixSeconds } from './signing.ts';

describe('signatureHeader', () => {
  it('matches an independently computed HMAC-SHA256 of t.body', () => {
    const secret = 'a'.repeat(64);
    const body = '{"created_at":"2026-01-05T12:00:00.000Z","data":{"message":"hi"},"id":"abc","livemode":false,"type":"ping"}';
    const expected = crypto.createHmac('sha256', secret).update(`1767614400.${body}`).digest('hex');
    expect(signatureHeader(secret, body, 1767614400)).toBe(`t=1767614400,v1=${expected}`);
  });

  it('matches a vector computed with openssl', () => {
    // echo -n '1.{}' | openssl dgst -sha256 -hmac secret
    expect(signatureHeader('secret', '{}', 1)).toBe('t=1,v1=1122767b193110cfec322b6f199b599edbf608ed087f2d27afb0b97d99523908');
  });

  it('signs the raw bytes: a string and its UTF-8 Buffer give the same digest; the key is UTF-8', () => {
    fc.assert(fc.property(fc.string(), fc.string({ minLength: 1 }), fc.nat(), (body, secret, t) => {
      expect(signatureDigest(secret, body, t)).toBe(signatureDigest(secret, Buffer.from(body, 'utf8'), t));
      const manual = crypto.createHmac('sha256', Buffer.from(secret, 'utf8'))
        .update(Buffer.concat([Buffer.from(`${t}.`), Buffer.from(body, 'utf8')])).digest('hex');
      expect(signatureDigest(secret, body, t)).toBe(manual);
    }));
  });

  it('changes with the time, the body and the secret', () => {
    const base = signatureHeader('s', 'body', 100);
    expect(signatureHeader('s', 'body', 101)).not.toBe(base);
    expect(signatureHeader('s', 'body!', 100).split(',')[1]).not.toBe(base.split(',')[1]);
    expect(signatureHeader('t', 'body', 100).split(',')[1]).not.toBe(base.split(',')[1]);
  });

  it('refuses a time that is not whole seconds', () => {
    expect(() => signatureHeader('s', 'b', 1.5)).toThrow(RangeError);
    expect(() => signatureHeader('s', 'b', -1)).toThrow(RangeError);
  });

  it('unixSeconds floors milliseconds', () => {
    expect(unixSeconds(new Date('2026-01-05T12:00:00.999Z'))).toBe(1767614400);
  });
});
