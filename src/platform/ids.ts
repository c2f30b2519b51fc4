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
  const out = Buffer.allocUnsafe(n);
  takeRandomInto(out, 0, n);
  return out;
}

/** Copies `n` (at most 4096) pool bytes into `target` at `offset`. */
function takeRandomInto(target: Uint8Array, offset: number, n: number): void {
  if (poolOffset + n > POOL_SIZE) {
    crypto.randomFillSync(pool);
    poolOffset = 0;
  }
  // Byte by byte: a handful of bytes, where subarray(), set() and fill() each cost more than the
  // copy. Each is zeroed once handed out, so no byte of a secret stays behind in the pool.
  for (let i = 0; i < n; i++) {
    target[offset + i] = pool[poolOffset + i];
    pool[poolOffset + i] = 0;
  }
  poolOffset += n;
}

const ALPHABET = Buffer.from(CROCKFORD, 'latin1');
/** Scratch space of newId: ids are made one at a time on a thread, so one of each is enough. */
const ID_BYTES = new Uint8Array(16);
const ID_CHARS = Buffer.alloc(26);

/**
 * `<prefix>_` + 26 characters: 48 bits of milliseconds then 80 random bits (ULID layout, lower case),
 * the 128 bits read five at a time in Crockford's base 32. Creating a payment makes several ids: the
 * characters go into a scratch buffer and become one string, with no string built piece by piece.
 */
export function newId(prefix: string, at: Date = new Date()): string {
  const bytes = ID_BYTES;
  let t = at.getTime();
  for (let i = 5; i >= 0; i--) {
    bytes[i] = t % 256;
    t = Math.floor(t / 256);
  }
  takeRandomInto(bytes, 6, 10);
  let bits = 0;
  let value = 0;
  let n = 0;
  for (let i = 0; i < 16; i++) {
    value = (value << 8) | bytes[i];
    bits += 8;
    while (bits >= 5) {
      ID_CHARS[n++] = ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  // 128 = 25 × 5 + 3: the last character carries the 3 bits left, padded with zeros.
  ID_CHARS[n] = ALPHABET[(value << (5 - bits)) & 31];
  bytes.fill(0, 6);
  return `${prefix}_${ID_CHARS.toString('latin1', 0, 26)}`;
}

const EVENT_RANDOM = Buffer.alloc(6);

/** Event ids are 24 hex characters (spec part 2): 12 of milliseconds, 12 random, so they sort by time. */
export function newEventId(at: Date = new Date()): string {
  takeRandomInto(EVENT_RANDOM, 0, 6);
  const id = at.getTime().toString(16).padStart(12, '0') + EVENT_RANDOM.toString('hex');
  EVENT_RANDOM.fill(0);
  return id;
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
