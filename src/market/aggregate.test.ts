import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec } from '../money/index.ts';
import { aggregate, median, pegState, type Quote } from './aggregate.ts';

const NOW = 1_000_000;
const MAX_AGE = 120_000;
const q = (source: string, price: string, ageMs = 0, quote: 'USD' | 'USDT' = 'USD'): Quote => ({ source, price: dec(price), quote, fetchedAt: NOW - ageMs });
const run = (quotes: Quote[], usdtUsd: string | null = null) => aggregate(quotes, { now: NOW, maxAgeMs: MAX_AGE, usdtUsd: usdtUsd === null ? null : dec(usdtUsd) });

describe('median', () => {
  it('is the middle value, or the mean of the two middle ones', () => {
    expect(median([dec(3), dec(1), dec(2)]).toFixed()).toBe('2');
    expect(median([dec(4), dec(1), dec(3), dec(2)]).toFixed()).toBe('2.5');
    expect(median([dec('7.25')]).toFixed()).toBe('7.25');
    expect(() => median([])).toThrow();
  });
});

describe('the rate of an asset', () => {
  it('is the median of the fresh sources', () => {
    const r = run([q('a', '100'), q('b', '101'), q('c', '103')]);
    expect(r.rate?.toFixed()).toBe('101');
    expect(r.uses.map((u) => u.used)).toEqual([true, true, true]);
    expect(r.updatedAt).toBe(NOW);
  });

  it('leaves out a source more than 5% from the median of all fresh sources, and takes the median of the rest', () => {
    const r = run([q('a', '100'), q('b', '102'), q('c', '150'), q('d', '101')]);
    expect(r.uses.find((u) => u.source === 'c')).toMatchObject({ outlier: true, used: false, fresh: true });
    expect(r.rate?.toFixed()).toBe('101');
  });

  it('gives no rate when the median rounds to zero at 8 decimals (a zero rate would divide by zero when pricing)', () => {
    const r = run([q('a', '0.000000001'), q('b', '0.000000001')]);
    expect(r.rate).toBeNull();
    expect(r.updatedAt).toBeNull();
    expect(r.uses.map((u) => u.used)).toEqual([false, false]);
  });

  it('keeps a source exactly 5% away', () => {
    const r = run([q('a', '100'), q('b', '100'), q('c', '105')]);
    expect(r.uses.every((u) => u.used)).toBe(true);
  });

  it('counts a price only while it is fresh (answered within RATE_MAX_AGE_S)', () => {
    const r = run([q('a', '100', MAX_AGE), q('b', '200', MAX_AGE + 1)]);
    expect(r.rate?.toFixed()).toBe('100');
    expect(r.uses.map((u) => u.fresh)).toEqual([true, false]);
    // the rate changes the moment the fresh one goes stale
    expect(r.changesAt).toBe(NOW + 1);
    expect(run([q('a', '100', MAX_AGE + 1)])).toMatchObject({ rate: null, updatedAt: null, changesAt: Infinity });
  });

  it('has no rate when two sources are more than 10% apart (each is more than 5% from their mean)', () => {
    expect(run([q('a', '100'), q('b', '111')]).rate).toBeNull();
    expect(run([q('a', '100'), q('b', '109')]).rate?.toFixed()).toBe('104.5');
  });

  it('turns USDT prices into dollars at USDT\'s rate, and counts none while USDT has no rate', () => {
    const r = run([q('binance', '100', 0, 'USDT'), q('kraken', '99.8')], '0.998');
    expect(r.uses[0].price.toFixed()).toBe('99.8');
    expect(r.rate?.toFixed()).toBe('99.8');
    const noUsdt = run([q('binance', '100', 0, 'USDT')]);
    expect(noUsdt.rate).toBeNull();
    expect(noUsdt.uses[0]).toMatchObject({ fresh: false, used: false });
  });

  it('rounds the rate half-up to 8 decimals', () => {
    expect(run([q('a', '0.123456785'), q('b', '0.123456785')]).rate?.toFixed()).toBe('0.12345679');
  });

  it('property: the rate lies within 5% of the median of the fresh prices, and every used price within 5% of it', () => {
    const price = fc.integer({ min: 1, max: 10_000_000 }).map((n) => dec(n).div(1000));
    fc.assert(fc.property(fc.array(fc.tuple(price, fc.integer({ min: 0, max: 2 * MAX_AGE })), { minLength: 1, maxLength: 6 }), (rows) => {
      const quotes = rows.map(([p, age], i) => ({ source: `s${i}`, price: p, quote: 'USD' as const, fetchedAt: NOW - age }));
      const r = aggregate(quotes, { now: NOW, maxAgeMs: MAX_AGE, usdtUsd: null });
      const fresh = quotes.filter((x) => NOW - x.fetchedAt <= MAX_AGE);
      if (fresh.length === 0) return r.rate === null;
      const mid = median(fresh.map((x) => x.price));
      const used = r.uses.filter((u) => u.used);
      for (const u of used) if (u.price.minus(mid).abs().gt(mid.mul('0.05'))) return false;
      if (r.rate === null) return used.length === 0;
      return r.rate.minus(mid).abs().lte(mid.mul('0.05').plus('0.00000001')) && used.every((u) => u.fresh);
    }));
  });
});

describe('stablecoin peg', () => {
  it.each([
    ['1', 'on_peg'], ['0.98', 'on_peg'], ['1.02', 'on_peg'], ['0.9799', 'drifting'], ['1.05', 'drifting'],
    ['0.9499', 'off_peg'], ['1.0501', 'off_peg'], ['0.5', 'off_peg'],
  ])('a price of %s is %s', (price, state) => {
    expect(pegState(dec(price))).toBe(state);
  });
});
