// The ticks of recurring work: whole UTC minutes and hours, the first one strictly after now.
import { expect, it } from 'vitest';
import fc from 'fast-check';
import { HOUR_MS, MINUTE_MS, nextTick } from './recurring.ts';

it('the next tick is the next whole minute or hour, a tick itself included', () => {
  expect(nextTick(new Date('2026-03-02T09:59:30Z'), MINUTE_MS)).toEqual(new Date('2026-03-02T10:00:00Z'));
  expect(nextTick(new Date('2026-03-02T10:00:00Z'), MINUTE_MS)).toEqual(new Date('2026-03-02T10:01:00Z'));
  expect(nextTick(new Date('2026-03-02T10:00:00Z'), HOUR_MS)).toEqual(new Date('2026-03-02T11:00:00Z'));
  expect(nextTick(new Date('2026-03-02T23:59:59.999Z'), HOUR_MS)).toEqual(new Date('2026-03-03T00:00:00Z'));
});

it('for any time and cadence, the next tick is a multiple of the cadence, after now, at most one cadence away', () => {
  fc.assert(fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.constantFrom(MINUTE_MS, HOUR_MS), (ms, period) => {
    const tick = nextTick(new Date(ms), period).getTime();
    expect(tick % period).toBe(0);
    expect(tick).toBeGreaterThan(ms);
    expect(tick - ms).toBeLessThanOrEqual(period);
  }));
});
