import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { signatureDigest, signatureHeader } from './signing.ts';
import {
  VERIFY_BAD_JSON, VERIFY_BAD_TIMESTAMP, VERIFY_MISMATCH, VERIFY_MISSING_HEADER, VERIFY_MISSING_SIGNATURE,
  VERIFY_MISSING_TIMESTAMP, VERIFY_TOO_OLD, verifyWebhook,
} from './verify.ts';

const SECRET = '0123456789abcdef'.repeat(4);
const T = 1767614400;
const NOW = new Date(T * 1000);
const BODY = '{"created_at":"2026-01-05T12:00:00.000Z","data":{"message":"hello"},"id":"0123456789abcdef01234567","livemode":false,"type":"ping"}';

describe('verifyWebhook', () => {
  it('accepts a fresh, correctly signed body and returns the parsed event', () => {
    const r = verifyWebhook(BODY, signatureHeader(SECRET, BODY, T), SECRET, { now: NOW });
    expect(r).toEqual({ ok: true, event: JSON.parse(BODY) });
  });

  it('accepts a Buffer body', () => {
    const r = verifyWebhook(Buffer.from(BODY), signatureHeader(SECRET, BODY, T), SECRET, { now: NOW });
    expect(r.ok).toBe(true);
  });

  it('rejects a missing or empty header', () => {
    expect(verifyWebhook(BODY, undefined, SECRET, { now: NOW })).toEqual({ ok: false, reason: VERIFY_MISSING_HEADER });
    expect(verifyWebhook(BODY, '', SECRET, { now: NOW })).toEqual({ ok: false, reason: VERIFY_MISSING_HEADER });
  });

  it('rejects when t is missing', () => {
    const v1 = signatureDigest(SECRET, BODY, T);
    expect(verifyWebhook(BODY, `v1=${v1}`, SECRET, { now: NOW })).toEqual({ ok: false, reason: VERIFY_MISSING_TIMESTAMP });
    expect(verifyWebhook(BODY, `t=,v1=${v1}`, SECRET, { now: NOW })).toEqual({ ok: false, reason: VERIFY_MISSING_TIMESTAMP });
  });

  it('rejects when v1 is missing (another scheme alone does not count)', () => {
    expect(verifyWebhook(BODY, `t=${T}`, SECRET, { now: NOW })).toEqual({ ok: false, reason: VERIFY_MISSING_SIGNATURE });
    expect(verifyWebhook(BODY, `t=${T},v0=abc`, SECRET, { now: NOW })).toEqual({ ok: false, reason: VERIFY_MISSING_SIGNATURE });
  });

  it('splits each part on its first = only', () => {
    // A value containing '=' must stay whole: "v1=abc=def" is the value "abc=def", which does not match.
    const v1 = signatureDigest(SECRET, BODY, T);
    expect(verifyWebhook(BODY, `t=${T},v1=${v1}=x`, SECRET, { now: NOW })).toEqual({ ok: false, reason: VERIFY_MISMATCH });
    expect(verifyWebhook(BODY, `t=${T},x=a=b,v1=${v1}`, SECRET, { now: NOW }).ok).toBe(true);
  });

  it('ignores parts order and unknown keys, and accepts when any v1 matches', () => {
    const v1 = signatureDigest(SECRET, BODY, T);
    expect(verifyWebhook(BODY, `v1=${v1},t=${T}`, SECRET, { now: NOW }).ok).toBe(true);
    expect(verifyWebhook(BODY, `t=${T},v1=${'0'.repeat(64)},v1=${v1}`, SECRET, { now: NOW }).ok).toBe(true);
    // the matching one first: a later wrong one does not undo it
    expect(verifyWebhook(BODY, `t=${T},v1=${v1},v1=${'0'.repeat(64)}`, SECRET, { now: NOW }).ok).toBe(true);
  });

  it('rejects a t that is not unix seconds', () => {
    expect(verifyWebhook(BODY, 't=12a,v1=00', SECRET, { now: NOW })).toEqual({ ok: false, reason: VERIFY_BAD_TIMESTAMP });
  });

  it('rejects a wrong secret, a changed body, a changed t, and an upper-case or truncated digest', () => {
    const header = signatureHeader(SECRET, BODY, T);
    expect(verifyWebhook(BODY, header, 'other', { now: NOW })).toEqual({ ok: false, reason: VERIFY_MISMATCH });
    expect(verifyWebhook(BODY + ' ', header, SECRET, { now: NOW })).toEqual({ ok: false, reason: VERIFY_MISMATCH });
    expect(verifyWebhook(BODY, header.replace(`t=${T}`, `t=${T + 1}`), SECRET, { now: NOW })).toEqual({ ok: false, reason: VERIFY_MISMATCH });
    expect(verifyWebhook(BODY, header.toUpperCase().replace('T=', 't=').replace('V1=', 'v1='), SECRET, { now: NOW }).ok).toBe(false);
    expect(verifyWebhook(BODY, header.slice(0, -2), SECRET, { now: NOW })).toEqual({ ok: false, reason: VERIFY_MISMATCH });
  });

  it('checks the HMAC over t exactly as received: t=0<seconds> is another message than t=<seconds>', () => {
    const header = signatureHeader(SECRET, BODY, T);
    expect(verifyWebhook(BODY, header.replace(`t=${T}`, `t=0${T}`), SECRET, { now: NOW })).toEqual({ ok: false, reason: VERIFY_MISMATCH });
    // a sender that writes the leading zero signs it: that verifies
    const zeroSigned = crypto.createHmac('sha256', SECRET).update(`0${T}.${BODY}`).digest('hex');
    expect(verifyWebhook(BODY, `t=0${T},v1=${zeroSigned}`, SECRET, { now: NOW }).ok).toBe(true);
  });

  it('rejects t more than the tolerance away from the clock, either way, and accepts at the edge', () => {
    const header = signatureHeader(SECRET, BODY, T);
    const at = (s: number) => new Date((T + s) * 1000);
    expect(verifyWebhook(BODY, header, SECRET, { now: at(300) }).ok).toBe(true);
    expect(verifyWebhook(BODY, header, SECRET, { now: at(-300) }).ok).toBe(true);
    expect(verifyWebhook(BODY, header, SECRET, { now: at(301) })).toEqual({ ok: false, reason: VERIFY_TOO_OLD });
    expect(verifyWebhook(BODY, header, SECRET, { now: at(-301) })).toEqual({ ok: false, reason: VERIFY_TOO_OLD });
    expect(verifyWebhook(BODY, header, SECRET, { now: at(20), toleranceSec: 10 })).toEqual({ ok: false, reason: VERIFY_TOO_OLD });
    // the clock is compared in whole seconds, as t is: the last millisecond of second +300 is inside
    const ms = (m: number) => new Date(T * 1000 + m);
    expect(verifyWebhook(BODY, header, SECRET, { now: ms(300_999) }).ok).toBe(true);
    expect(verifyWebhook(BODY, header, SECRET, { now: ms(301_000) })).toEqual({ ok: false, reason: VERIFY_TOO_OLD });
    expect(verifyWebhook(BODY, header, SECRET, { now: ms(-300_000) }).ok).toBe(true);
    expect(verifyWebhook(BODY, header, SECRET, { now: ms(-300_001) })).toEqual({ ok: false, reason: VERIFY_TOO_OLD });
  });

  it('checks the signature before parsing: a badly signed non-JSON body reports the signature', () => {
    expect(verifyWebhook('not json', signatureHeader('x', 'other', T), SECRET, { now: NOW }))
      .toEqual({ ok: false, reason: VERIFY_MISMATCH });
    expect(verifyWebhook('not json', signatureHeader(SECRET, 'not json', T), SECRET, { now: NOW }))
      .toEqual({ ok: false, reason: VERIFY_BAD_JSON });
    expect(verifyWebhook('[1]', signatureHeader(SECRET, '[1]', T), SECRET, { now: NOW }))
      .toEqual({ ok: false, reason: VERIFY_BAD_JSON });
  });

  it('property: anything signed verifies; any other secret does not', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string({ minLength: 1 }), (obj, other) => {
      const body = JSON.stringify(obj);
      const header = signatureHeader(SECRET, body, T);
      expect(verifyWebhook(body, header, SECRET, { now: NOW }).ok).toBe(true);
      if (other !== SECRET) expect(verifyWebhook(body, header, other, { now: NOW }).ok).toBe(false);
    }));
  });
});
