import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FiguresThrottle } from './figures-throttle.ts';
import { FIGURES_INTERVAL_MS } from './events.ts';

describe('FiguresThrottle', () => {
  beforeEach(() => { vi.useFakeTimers(); });
  afterEach(() => { vi.useRealTimers(); });

  it('is the 2 seconds of spec 8 (dashboard figure push) that the realtime room throttles with', () => {
    expect(FIGURES_INTERVAL_MS).toBe(2000);
  });

  it('pushes at once, then at most once per interval per merchant and mode', () => {
    const pushes: string[] = [];
    const t = new FiguresThrottle(FIGURES_INTERVAL_MS, (m, live) => pushes.push(`${m}:${live}`));
    t.request('m1', false);
    t.request('m1', false);
    t.request('m1', false);
    t.request('m1', true);
    expect(pushes).toEqual(['m1:false', 'm1:true']);
    vi.advanceTimersByTime(1999);
    expect(pushes).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(pushes).toEqual(['m1:false', 'm1:true', 'm1:false']);
    // Nothing owed in the new window: it closes quietly, and the next request pushes at once.
    vi.advanceTimersByTime(5000);
    expect(pushes).toHaveLength(3);
    t.request('m1', true);
    expect(pushes).toHaveLength(4);
    t.stop();
  });

  it('never pushes more than once in any 2-second span under a steady stream', () => {
    const at: number[] = [];
    const t = new FiguresThrottle(FIGURES_INTERVAL_MS, () => at.push(Date.now()));
    for (let i = 0; i < 100; i++) { t.request('m', false); vi.advanceTimersByTime(100); }
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeGreaterThanOrEqual(2000);
    expect(at.length).toBeGreaterThanOrEqual(5);
    t.stop();
  });
});
