import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cents, dollars, fromUnits, isPositive, remaining, toUnits } from './amounts.ts';

describe('coin amounts in base units', () => {
  it('reads decimal strings exactly', () => {
    expect(toUnits('0.01234567', 18)).toBe(12_345_670_000_000_000n);
    expect(toUnits('26.27', 6)).toBe(26_270_000n);
    expect(toUnits('3', 8)).toBe(300_000_000n);
    expect(toUnits('1.50', 1)).toBe(15n); // trailing zeros past the coin's decimals are no digits
  });

  it('refuses what is not an amount of the coin', () => {
    for (const bad of ['', '-1', '1e5', '0x10', '1.2.3', ' ', 'NaN', '.5']) expect(toUnits(bad, 8)).toBeNull();
    expect(toUnits('0.000000001', 8)).toBeNull();
  });

  it('writes base units back as the shortest decimal string', () => {
    expect(fromUnits(12_345_670_000_000_000n, 18)).toBe('0.01234567');
    expect(fromUnits(300_000_000n, 8)).toBe('3');
    expect(fromUnits(1n, 6)).toBe('0.000001');
    expect(fromUnits(0n, 6)).toBe('0');
  });

  it('round-trips any amount (property)', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 18 }), (units, decimals) => {
      expect(toUnits(fromUnits(units, decimals), decimals)).toBe(units);
    }));
  });

  it('what is still due never goes below zero and adds back up (property)', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 24n }), fc.bigInt({ min: 0n, max: 10n ** 24n }), (due, got) => {
      const rest = remaining(fromUnits(due, 18), fromUnits(got, 18), 18)!;
      expect(toUnits(rest, 18)).toBe(due > got ? due - got : 0n);
    }));
    expect(remaining('0.5', '0.2', 8)).toBe('0.3');
    expect(remaining('0.5', 'x', 8)).toBeNull();
  });

  it('dollars and cents', () => {
    expect(cents('25')).toBe(2500n);
    expect(cents('25.5')).toBe(2550n);
    expect(cents('0.205')).toBeNull();
    expect(cents(undefined)).toBeNull();
    expect(dollars(2550n)).toBe('25.50');
    expect(dollars(5n)).toBe('0.05');
    expect(dollars(-20n)).toBe('-0.20');
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), (c) => { expect(cents(dollars(c))).toBe(c); }));
  });

  it('isPositive', () => {
    expect(isPositive('0')).toBe(false);
    expect(isPositive('0.000')).toBe(false);
    expect(isPositive(undefined)).toBe(false);
    expect(isPositive('0.001')).toBe(true);
  });
});
