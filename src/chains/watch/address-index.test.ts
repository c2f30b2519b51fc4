import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AddressIndex } from './address-index.ts';

describe('AddressIndex', () => {
  it('knows exactly the addresses added, through growth', () => {
    fc.assert(fc.property(fc.uniqueArray(fc.stringMatching(/^[0-9a-f]{40}$/), { minLength: 1, maxLength: 3000 }), (all) => {
      const half = Math.ceil(all.length / 2);
      const idx = new AddressIndex();
      for (const a of all.slice(0, half)) idx.add(`0x${a}`);
      for (const a of all.slice(0, half)) expect(idx.has(`0x${a}`)).toBe(true);
      for (const a of all.slice(half)) expect(idx.has(`0x${a}`)).toBe(false);
      expect(idx.size).toBe(half);
    }), { numRuns: 20 });
  });

  it('hasSlice finds prefix + the rest of a string from an offset, capitals as small letters, as has() does', () => {
    fc.assert(fc.property(fc.uniqueArray(fc.stringMatching(/^[0-9a-f]{40}$/), { minLength: 2, maxLength: 200 }), (all) => {
      const idx = new AddressIndex();
      const [out, ...inside] = all;
      for (const a of inside) idx.add(`41${a}`);
      for (const a of inside) {
        expect(idx.hasSlice('41', `${'0'.repeat(24)}${a}`, 24)).toBe(true);
        expect(idx.hasSlice('41', `${'0'.repeat(24)}${a.toUpperCase()}`, 24)).toBe(true);
        expect(idx.hasSlice('', `41${a}`, 0)).toBe(true);
      }
      expect(idx.hasSlice('41', `${'0'.repeat(24)}${out}`, 24)).toBe(false);
      expect(idx.hasSlice('', out, 0)).toBe(false);
    }), { numRuns: 20 });
  });

  it('adding an address again changes nothing', () => {
    const idx = new AddressIndex();
    idx.add('0xabc');
    idx.add('0xabc');
    expect(idx.size).toBe(1);
  });

  it('a tagged address is matched with its tag, and the bare address is known as ours', () => {
    const idx = new AddressIndex();
    idx.add('rService', 42);
    expect(idx.has('rService', 42)).toBe(true);
    expect(idx.has('rService', 43)).toBe(false);
    expect(idx.has('rService')).toBe(true);
    expect(idx.has('rOther')).toBe(false);
    expect(idx.size).toBe(2);
  });

  it('sizes its table for the expected count (at most half full)', () => {
    const idx = new AddressIndex(100_000);
    expect(idx.bytes).toBe(2 * 4 * 262_144);
  });
});
