import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FiguresThrottle } from './figures-throttle.ts';

describe('FiguresThrottle', () => {
  beforeEach(() => { vi.useFakeTimers(); });
  afterEach(() => { vi.useRealTimers(); });

  it('pushes at once, then at most once per interval per merchant and mode', () => {
    const pushes: string[] = [];
    const t = new FiguresThrottle(2000, (m, live) => pushes.push(`${m}:${live}`));
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
    const t = new FiguresThrottle(2000, () => at.push(Date.now()));
    for (let i = 0; i < 100; i++) { t.request('m', false); vi.advanceTimersByTime(100); }
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeGreaterThanOrEqual(2000);
    expect(at.length).toBeGreaterThanOrEqual(5);
    t.stop();
  });
});
