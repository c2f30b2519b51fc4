// The watched addresses of one chain in a compact in-memory set: every deposit address issued for a
// live payment (with its XRP destination tag), as a 64-bit fingerprint in an open-addressing table
// of two Uint32Arrays (8 bytes a slot, at most half full: about 16 MB for a million addresses, and
// nothing for the garbage collector to walk). It is a filter: a fingerprint can in principle
// collide (about one in 2^64 per look-up), so a hit is always confirmed against the payments in the
// database before anything is recorded, and a miss is exact.

const EMPTY = 0;
const MIN_CAPACITY = 1 << 10;

// The fingerprint of the last key hashed (no array allocated per look-up: a block matches thousands).
let fa = 0;
let fb = 0;

/** The final mix of the two running hashes into fa, fb; never both 0 (0, 0 marks an empty slot). */
function settle(a: number, b: number): void {
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  b ^= b >>> 16;
  fa = a >>> 0;
  fb = b >>> 0;
  if (fa === EMPTY && fb === EMPTY) fa = 1;
}

/** Two independent 32-bit hashes of a string (FNV-1a and a multiplicative mix) into fa, fb. */
function fingerprint(key: string): void {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  settle(a, b);
}

/** fingerprint(prefix + source.slice(start)) with A-Z read as a-z, allocating nothing. */
function fingerprintSlice(prefix: string, source: string, start: number): void {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  const n = prefix.length + source.length - start;
  for (let i = 0; i < n; i++) {
    let c = i < prefix.length ? prefix.charCodeAt(i) : source.charCodeAt(start + i - prefix.length);
    if (c >= 65 && c <= 90) c += 32;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  settle(a, b);
}

/** The index key of an address (already in the chain's normal form) and optional destination tag. */
export const addressKey = (address: string, tag?: number): string => (tag === undefined ? address : `${address}#${tag}`);

export class AddressIndex {
  #hi: Uint32Array;
  #lo: Uint32Array;
  #size = 0;

  constructor(expected = 0) {
    let capacity = MIN_CAPACITY;
    while (capacity < expected * 2) capacity *= 2;
    this.#hi = new Uint32Array(capacity);
    this.#lo = new Uint32Array(capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** Bytes held by the table. */
  get bytes(): number {
    return this.#hi.byteLength + this.#lo.byteLength;
  }

  /** Adds an address (and tag); adding it again changes nothing. A tagged address also makes the bare address known as ours. */
  add(address: string, tag?: number): void {
    this.#insert(addressKey(address, tag));
    if (tag !== undefined) this.#insert(address);
  }

  has(address: string, tag?: number): boolean {
    fingerprint(tag === undefined ? address : addressKey(address, tag));
    return this.#found(fa, fb);
  }

  /**
   * `has(prefix + source.slice(start))` without building that string, ASCII capitals read as small
   * letters (a Tron log topic holds the 20 address bytes from character 24; the key is `41` and
   * them in lower case): one look-up per transfer of a block, thousands of them.
   */
  hasSlice(prefix: string, source: string, start: number): boolean {
    fingerprintSlice(prefix, source, start);
    return this.#found(fa, fb);
  }

  #found(a: number, b: number): boolean {
    const mask = this.#hi.length - 1;
    for (let i = a & mask; ; i = (i + 1) & mask) {
      const h = this.#hi[i];
      const l = this.#lo[i];
      if (h === EMPTY && l === EMPTY) return false;
      if (h === a && l === b) return true;
    }
  }

  #insert(key: string): void {
    if ((this.#size + 1) * 2 > this.#hi.length) this.#grow();
    fingerprint(key);
    if (this.#place(this.#hi, this.#lo, fa, fb)) this.#size++;
  }

  /** Puts a fingerprint in the first free slot of its run; false when it was there already. */
  #place(hi: Uint32Array, lo: Uint32Array, a: number, b: number): boolean {
    const mask = hi.length - 1;
    for (let i = a & mask; ; i = (i + 1) & mask) {
      if (hi[i] === EMPTY && lo[i] === EMPTY) {
        hi[i] = a;
        lo[i] = b;
        return true;
      }
      if (hi[i] === a && lo[i] === b) return false;
    }
  }

  #grow(): void {
    const hi = new Uint32Array(this.#hi.length * 2);
    const lo = new Uint32Array(this.#lo.length * 2);
    for (let i = 0; i < this.#hi.length; i++) {
      if (this.#hi[i] !== EMPTY || this.#lo[i] !== EMPTY) this.#place(hi, lo, this.#hi[i], this.#lo[i]);
    }
    this.#hi = hi;
    this.#lo = lo;
  }
}
