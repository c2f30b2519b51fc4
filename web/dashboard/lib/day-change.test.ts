import { afterEach, describe, expect, it, vi } from 'vitest';
import { onEachUtcDay } from './day-change.ts';

describe('the figures\' day', () => {
  afterEach(() => vi.useRealTimers());

  // The "today" figures count from midnight UTC (src/payments/dashboard.ts): an open overview reads
  // them again as each UTC day begins, with no event to push them.
  it('calls back once as each UTC day begins, a little after midnight, until stopped', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-03-01T23:59:00Z'));
    const at: string[] = [];
    const stop = onEachUtcDay(() => at.push(new Date().toISOString()), () => 0);
    vi.advanceTimersByTime(59_999);
    expect(at).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(at).toEqual(['2026-03-02T00:00:00.000Z']);
    vi.advanceTimersByTime(86_400_000);
    expect(at).toEqual(['2026-03-02T00:00:00.000Z', '2026-03-03T00:00:00.000Z']);
    stop();
    vi.advanceTimersByTime(2 * 86_400_000);
    expect(at).toHaveLength(2);
  });

  it('spreads the pages over the first seconds of the day (the spread given)', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-03-01T12:00:00Z'));
    const at: number[] = [];
    const stop = onEachUtcDay(() => at.push(Date.now()), () => 4_000);
    vi.advanceTimersByTime(12 * 3_600_000 + 3_999);
    expect(at).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(new Date(at[0]).toISOString()).toBe('2026-03-02T00:00:04.000Z');
    stop();
  });
});
