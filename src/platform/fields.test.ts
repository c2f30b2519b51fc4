import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { longerThan } from './fields.ts';

describe('longerThan', () => {
  it('counts code points, not UTF-16 units: an emoji is one character', () => {
    expect(longerThan('\u{1F600}'.repeat(3), 3)).toBe(false);
    expect(longerThan('\u{1F600}'.repeat(4), 3)).toBe(true);
    expect(longerThan('abc', 3)).toBe(false);
    expect(longerThan('abcd', 3)).toBe(true);
  });

  it('agrees with the count of code points for any string and limit', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.nat(70), (s, max) => {
      expect(longerThan(s, max)).toBe([...s].length > max);
    }));
  });
});
