import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_WEBHOOK_RETRY_DELAYS } from '../config.ts';
import { afterFailedAttempt, MAX_ATTEMPTS, nextAttemptAt } from './schedule.ts';

const failedAt = new Date('2026-01-05T12:00:00Z');
const plus = (s: number) => new Date(failedAt.getTime() + s * 1000).toISOString();

describe('nextAttemptAt', () => {
  it('follows the spec schedule: 1 min, 5 min, 30 min, 2 h, 6 h, 24 h after each failure', () => {
    const got = [1, 2, 3, 4, 5, 6].map((n) => nextAttemptAt(n, DEFAULT_WEBHOOK_RETRY_DELAYS, failedAt)?.toISOString());
    expect(got).toEqual([plus(60), plus(300), plus(1800), plus(7200), plus(21600), plus(86400)]);
  });

  it('gives up after the 7th failure', () => {
    expect(MAX_ATTEMPTS).toBe(7);
    expect(nextAttemptAt(7, DEFAULT_WEBHOOK_RETRY_DELAYS, failedAt)).toBeNull();
    expect(afterFailedAttempt(7, DEFAULT_WEBHOOK_RETRY_DELAYS, failedAt)).toEqual({ status: 'failed' });
    expect(afterFailedAttempt(6, DEFAULT_WEBHOOK_RETRY_DELAYS, failedAt))
      .toEqual({ status: 'pending', nextAttemptAt: new Date(plus(86400)) });
  });

  it('the whole schedule spans about 33 hours (32.6 h of waiting)', () => {
    let at = failedAt;
    for (let n = 1; n < 7; n++) at = nextAttemptAt(n, DEFAULT_WEBHOOK_RETRY_DELAYS, at)!;
    expect((at.getTime() - failedAt.getTime()) / 3_600_000).toBeCloseTo(32.6, 5);
  });

  it('uses configured delays (WEBHOOK_RETRY_DELAYS)', () => {
    expect(nextAttemptAt(3, [1, 2, 3, 4, 5, 6], failedAt)?.toISOString()).toBe(plus(3));
  });

  it('refuses nonsense counts and too short delay lists', () => {
    expect(() => nextAttemptAt(0, DEFAULT_WEBHOOK_RETRY_DELAYS, failedAt)).toThrow(RangeError);
    expect(() => nextAttemptAt(1.5, DEFAULT_WEBHOOK_RETRY_DELAYS, failedAt)).toThrow(RangeError);
    expect(() => nextAttemptAt(3, [1, 2], failedAt)).toThrow(RangeError);
  });

  it('property: the next attempt is exactly the matching delay after the failure, never before it', () => {
    fc.assert(fc.property(
      fc.array(fc.nat({ max: 10 ** 6 }), { minLength: 6, maxLength: 6 }),
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 0, max: 4 * 10 ** 12 }),
      (delays, n, ms) => {
        const at = new Date(ms);
        const next = nextAttemptAt(n, delays, at)!;
        expect(next.getTime() - at.getTime()).toBe(delays[n - 1] * 1000);
      },
    ));
  });
});
