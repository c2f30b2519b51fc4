import { describe, expect, it } from 'vitest';
import { newEventId, newId, pooledRandomBytes, randomHex, safeEqual } from './ids.ts';

describe('ids', () => {
  it('carries its prefix and sorts by creation time', () => {
    const a = newId('pay', new Date('2026-01-01T00:00:00Z'));
    const b = newId('pay', new Date('2026-01-01T00:00:00.001Z'));
    expect(a).toMatch(/^pay_[0-9a-z]{26}$/);
    expect(a < b).toBe(true);
  });

  it('lays out 48 bits of milliseconds then 80 random bits in Crockford base 32', () => {
    const at = new Date('2026-11-26T04:30:00.123Z');
    const decode = (id: string): bigint => {
      let v = 0n;
      for (const c of id.slice(id.indexOf('_') + 1)) v = (v << 5n) | BigInt('0123456789abcdefghjkmnpqrstvwxyz'.indexOf(c));
      return v >> 2n; // 26 characters are 130 bits: the last two are padding
    };
    const ids = Array.from({ length: 200 }, () => newId('dlv', at));
    for (const id of ids) {
      expect(id).toMatch(/^dlv_[0-9a-hjkmnp-tv-z]{25}[048cgmrw]$/);
      expect(decode(id) >> 80n).toBe(BigInt(at.getTime()));
    }
    // the random part differs every time and is not all zeros
    const randoms = new Set(ids.map((id) => decode(id) & ((1n << 80n) - 1n)));
    expect(randoms.size).toBe(200);
    expect(randoms.has(0n)).toBe(false);
  });

  it('event ids are 24 hex characters, sortable by time', () => {
    const a = newEventId(new Date('2026-01-01T00:00:00Z'));
    const b = newEventId(new Date('2026-01-02T00:00:00Z'));
    expect(a).toMatch(/^[0-9a-f]{24}$/);
    expect(a.slice(0, 12)).toBe(new Date('2026-01-01T00:00:00Z').getTime().toString(16).padStart(12, '0'));
    expect(a < b).toBe(true);
    expect(new Set(Array.from({ length: 100 }, () => newEventId(new Date(0)).slice(12))).size).toBe(100);
  });

  it('pooled random bytes have the asked length, never repeat across refills, and go past the pool size', () => {
    const seen = new Set<string>();
    // 3,000 × 10 bytes crosses the 4 KiB pool several times, at offsets that do not divide it.
    for (let i = 0; i < 3000; i++) {
      const b = pooledRandomBytes(10);
      expect(b.length).toBe(10);
      seen.add(b.toString('hex'));
    }
    expect(seen.size).toBe(3000);
    expect(pooledRandomBytes(5000).length).toBe(5000);
    // Copies, not views of the pool: a later call does not change an earlier answer.
    const first = pooledRandomBytes(24);
    const copy = Buffer.from(first);
    for (let i = 0; i < 400; i++) pooledRandomBytes(24);
    expect(first.equals(copy)).toBe(true);
    expect(first.equals(Buffer.alloc(24))).toBe(false);
  });

  it('secrets are 64 hex characters and never repeat', () => {
    const s = new Set(Array.from({ length: 100 }, () => randomHex()));
    expect(s.size).toBe(100);
    for (const v of s) expect(v).toMatch(/^[0-9a-f]{64}$/);
  });

  it('compares in constant time and tells equal from different', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
