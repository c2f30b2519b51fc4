import { afterEach, describe, expect, it, vi } from 'vitest';
import { onEachUtcDay } from './day-change.ts';
import { heardServerTime, serverNow } from './server-clock.ts';
import { Api } from './api.ts';

/** The gateway's `Date` header when its clock reads `iso`. */
const dateHeader = (iso: string): string => new Date(iso).toUTCString();

describe('the figures\' day', () => {
  afterEach(() => {
    heardServerTime(dateHeader('1970-01-01T00:00:00Z'), 0); // the device's clock again
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

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

  // The figures' day is the gateway's (it counts from its midnight): a device clock that is off
  // must not reload them before that midnight (yesterday's figures shown as today's all day) nor
  // long after it.
  it('waits for the gateway\'s midnight when the device clock is ahead, as its Date header tells', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-03-01T23:59:00Z'));
    heardServerTime(dateHeader('2026-03-01T23:54:00Z'));
    const at: string[] = [];
    const stop = onEachUtcDay(() => at.push(new Date().toISOString()), () => 0);
    vi.advanceTimersByTime(60_000);
    expect(at).toEqual([]); // the device's midnight: the gateway's day has not begun
    vi.advanceTimersByTime(5 * 60_000);
    expect(at).toEqual(['2026-03-02T00:05:00.000Z']);
    vi.advanceTimersByTime(86_400_000);
    expect(at).toEqual(['2026-03-02T00:05:00.000Z', '2026-03-03T00:05:00.000Z']);
    stop();
  });

  it('reloads at the gateway\'s midnight when the device clock is behind', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-03-01T23:00:00Z'));
    heardServerTime(dateHeader('2026-03-01T23:40:00Z'));
    const at: string[] = [];
    const stop = onEachUtcDay(() => at.push(new Date().toISOString()), () => 0);
    vi.advanceTimersByTime(20 * 60_000);
    expect(at).toEqual(['2026-03-01T23:20:00.000Z']);
    stop();
  });

  it('follows the gateway\'s clock learned after the wait began, and reloads once a day however it moves', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-03-01T22:00:00Z'));
    const at: string[] = [];
    const stop = onEachUtcDay(() => at.push(new Date().toISOString()), () => 2_000);
    vi.advanceTimersByTime(60 * 60_000);
    heardServerTime(dateHeader('2026-03-01T23:30:00Z')); // the device is 30 minutes behind
    vi.advanceTimersByTime(30 * 60_000 + 1_999);
    expect(at).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(at).toEqual(['2026-03-01T23:30:02.000Z']);
    // A later answer a second behind (the header's whole second) does not bring the day back.
    heardServerTime(dateHeader('2026-03-01T23:59:59Z'));
    vi.advanceTimersByTime(3 * 60_000);
    expect(at).toHaveLength(1);
    stop();
  });

  it('learns the gateway\'s clock from the Date header of the dashboard\'s API answers', async () => {
    const gateway = Date.parse('2026-03-01T23:54:00Z');
    vi.stubGlobal('fetch', async () => new Response('{}', { headers: { 'content-type': 'application/json', date: new Date(gateway).toUTCString() } }));
    await new Api({ token: () => 't', refresh: async () => null }).get('/merchant/dashboard');
    expect(Math.abs(serverNow() - gateway)).toBeLessThan(1_000);
  });
});
