// Identifiers: a kind prefix and a time-sortable body, so ids sort by creation and say what they name.
import crypto from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

function base32(bytes: Uint8Array, chars: number): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += CROCKFORD[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += CROCKFORD[(value << (5 - bits)) & 31];
  return out.slice(0, chars);
}

function timeBytes(ms: number): Uint8Array {
  const b = new Uint8Array(6);
  let t = ms;
  for (let i = 5; i >= 0; i--) {
    b[i] = t % 256;
    t = Math.floor(t / 256);
  }
  return b;
}

/** `<prefix>_` + 26 characters: 48 bits of milliseconds then 80 random bits (ULID layout, lower case). */
export function newId(prefix: string, at: Date = new Date()): string {
  const bytes = new Uint8Array(16);
  bytes.set(timeBytes(at.getTime()), 0);
  bytes.set(crypto.randomBytes(10), 6);
  return `${prefix}_${base32(bytes, 26)}`;
}

/** Event ids are 24 hex characters (spec part 2): 12 of milliseconds, 12 random, so they sort by time. */
export function newEventId(at: Date = new Date()): string {
  return Buffer.from(timeBytes(at.getTime())).toString('hex') + crypto.randomBytes(6).toString('hex');
}

/** An opaque random secret of `bytes` bytes as lowercase hex (API keys and signing secrets: 32 bytes = 64 hex). */
export function randomHex(bytes = 32): string {
  return crypto.randomBytes(bytes).toString('hex');
}

/** Constant-time comparison of two strings (secrets, signatures, tokens). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    crypto.timingSafeEqual(ab, ab);
    return false;
  }
  return crypto.timingSafeEqual(ab, bb);
}
