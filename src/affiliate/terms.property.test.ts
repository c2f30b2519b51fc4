// Property tests of the referral program's arithmetic: commission rounding, business days, months.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec } from '../money/index.ts';
import { addMonths, businessDaysAfter, commissionUnits, earnsUntil, minPayoutMessage } from './terms.ts';

const WEEKEND = [0, 6];
const dates = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true });
/** Dollar figures with up to 8 decimals (fees are to the cent; wider inputs test the rounding). */
const usd = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 8 })).map(([n, places]) => dec(n.toString()).div(dec(10).pow(places)));

describe('commissionUnits', () => {
  it('is fee × rate / 10000 rounded down to 6 decimals: never more, less by under a millionth', () => {
    fc.assert(fc.property(usd, fc.integer({ min: 0, max: 10_000 }), (fee, rate) => {
      const units = commissionUnits(fee, rate);
      const exact = fee.mul(rate).div(10_000);
      const credited = dec(units.toString()).div(1_000_000);
      expect(credited.lte(exact)).toBe(true);
      expect(exact.minus(credited).lt('0.000001')).toBe(true);
      expect(units >= 0n).toBe(true);
    }));
  });

  it('matches worked examples', () => {
    expect(commissionUnits(dec('0.2'), 2500)).toBe(50_000n); // 0.05
    expect(commissionUnits(dec('1.23'), 2500)).toBe(307_500n); // 0.3075
    expect(commissionUnits(dec('0.0000039'), 2500)).toBe(0n); // 0.000000975 → 0
    expect(commissionUnits(dec('0.00001'), 3333)).toBe(3n); // 0.0000033330 → 0.000003
    expect(commissionUnits(dec('100'), 0)).toBe(0n);
    expect(commissionUnits(dec('100'), 10_000)).toBe(100_000_000n);
  });
});

describe('businessDaysAfter', () => {
  it('lands n weekdays later at the same UTC time, never on a weekend, counting each weekday between once', () => {
    fc.assert(fc.property(dates, fc.integer({ min: 1, max: 60 }), (from, n) => {
      const due = businessDaysAfter(from, n);
      expect(due.getTime() % 86_400_000).toBe(((from.getTime() % 86_400_000) + 86_400_000) % 86_400_000);
      expect(WEEKEND).not.toContain(due.getUTCDay());
      let weekdays = 0;
      for (let t = from.getTime() + 86_400_000; t <= due.getTime(); t += 86_400_000) if (!WEEKEND.includes(new Date(t).getUTCDay())) weekdays++;
      expect(weekdays).toBe(n);
      // never more than n weekdays plus the weekends between them
      expect(due.getTime() - from.getTime()).toBeLessThanOrEqual((n + 2 * Math.ceil(n / 5) + 2) * 86_400_000);
    }));
  });

  it('matches worked examples', () => {
    const at = (s: string, n: number) => businessDaysAfter(new Date(s), n).toISOString();
    expect(at('2026-01-05T12:00:00.000Z', 3)).toBe('2026-01-08T12:00:00.000Z'); // Monday → Thursday
    expect(at('2026-01-09T09:30:00.000Z', 3)).toBe('2026-01-14T09:30:00.000Z'); // Friday → Wednesday
    expect(at('2026-01-10T23:59:00.000Z', 1)).toBe('2026-01-12T23:59:00.000Z'); // Saturday → Monday
    expect(at('2026-01-11T00:00:00.000Z', 5)).toBe('2026-01-16T00:00:00.000Z'); // Sunday → Friday
    expect(at('2026-01-10T08:00:00.000Z', 0)).toBe('2026-01-10T08:00:00.000Z');
  });
});

describe('addMonths and earnsUntil', () => {
  it('keeps the time of day and the day of month, or the month\'s last day', () => {
    fc.assert(fc.property(dates, fc.integer({ min: 0, max: 240 }), (from, n) => {
      const to = addMonths(from, n);
      expect(to.getTime() % 86_400_000).toBe(from.getTime() % 86_400_000);
      expect((to.getUTCFullYear() - from.getUTCFullYear()) * 12 + to.getUTCMonth() - from.getUTCMonth()).toBe(n);
      const lastDay = new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth() + 1, 0)).getUTCDate();
      expect(to.getUTCDate()).toBe(Math.min(from.getUTCDate(), lastDay));
    }));
  });

  it('matches worked examples; 0 months earns as long as the merchant uses the service', () => {
    expect(addMonths(new Date('2026-01-31T10:00:00Z'), 1).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(addMonths(new Date('2027-12-31T10:00:00Z'), 2).toISOString()).toBe('2028-02-29T10:00:00.000Z');
    expect(earnsUntil(new Date('2026-03-15T00:00:00Z'), 12)?.toISOString()).toBe('2027-03-15T00:00:00.000Z');
    expect(earnsUntil(new Date('2026-03-15T00:00:00Z'), 0)).toBeNull();
  });

  it('writes the minimum payout with two decimals', () => {
    expect(minPayoutMessage('50')).toBe('the minimum payout is 50.00 USDT_TRC20');
    expect(minPayoutMessage('25.5')).toBe('the minimum payout is 25.50 USDT_TRC20');
  });
});
