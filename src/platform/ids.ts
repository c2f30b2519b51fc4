// Identifiers: a kind prefix and a time-sortable body, so ids sort by creation and say what they name.
import crypto from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * Random bytes from a pool refilled 4 KiB at a time: each call of crypto.randomBytes costs a trip
 * into OpenSSL's generator, and a payment's creation takes six ids. Bytes are handed out once and
 * the pool is refilled from the same CSPRNG (what crypto.randomUUID does too).
 */
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

/** `n` (at most 4096) fresh cryptographically random bytes, copied out of the pool. */
export function pooledRandomBytes(n: number): Buffer {
  if (n > POOL_SIZE) return crypto.randomBytes(n);
  if (poolOffset + n > POOL_SIZE) {
    crypto.randomFillSync(pool);
    poolOffset = 0;
  }
  const out = Buffer.from(pool.subarray(poolOffset, poolOffset + n));
  // Zeroed once handed out, so no byte of a secret stays behind in the pool.
  pool.fill(0, poolOffset, poolOffset + n);
  poolOffset += n;
  return out;
}

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
  bytes.set(pooledRandomBytes(10), 6);
  return `${prefix}_${base32(bytes, 26)}`;
}

/** Event ids are 24 hex characters (spec part 2): 12 of milliseconds, 12 random, so they sort by time. */
export function newEventId(at: Date = new Date()): string {
  return Buffer.from(timeBytes(at.getTime())).toString('hex') + pooledRandomBytes(6).toString('hex');
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
