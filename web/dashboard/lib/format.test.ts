import { describe, expect, it } from 'vitest';
import { usd } from './format.ts';

describe('dollars as written on the pages', () => {
  it('has two decimals at least, added as text (never through a float)', () => {
    expect(usd('12.5')).toBe('$12.50');
    expect(usd('3000')).toBe('$3000.00');
    expect(usd('0')).toBe('$0.00');
    expect(usd('0.31')).toBe('$0.31');
    expect(usd('-0.3')).toBe('-$0.30');
    expect(usd('-7')).toBe('-$7.00');
    expect(usd('90071992547409931.1')).toBe('$90071992547409931.10');
  });
  it('keeps a figure given to more than the cent whole, and a missing one as a dash', () => {
    expect(usd('0.004567')).toBe('$0.004567');
    expect(usd(undefined)).toBe('—');
    expect(usd('')).toBe('—');
  });
});
