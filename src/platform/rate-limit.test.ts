import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from './rate-limit.ts';

describe('sliding-window rate limiter', () => {
  it('admits N in any one-second window and does not count refusals', async () => {
    const rl = new MemoryRateLimiter();
    const results: boolean[] = [];
    for (let i = 0; i < 7; i++) results.push(await rl.take('k', 5, 1000, 1000 + i));
    expect(results).toEqual([true, true, true, true, true, false, false]);
    // 999 ms after the first admitted request the window still holds five
    expect(await rl.take('k', 5, 1000, 1999)).toBe(false);
    // once the first one is a full second old, one more fits (refusals did not count)
    expect(await rl.take('k', 5, 1000, 2000)).toBe(true);
    expect(await rl.take('k', 5, 1000, 2000)).toBe(false);
    expect(await rl.take('other', 5, 1000, 2000)).toBe(true);
  });

  it('never admits more than N across a window boundary (no fixed-window burst)', async () => {
    const rl = new MemoryRateLimiter();
    let admitted = 0;
    for (let t = 900; t < 1100; t += 10) if (await rl.take('k', 5, 1000, t)) admitted++;
    expect(admitted).toBe(5);
  });
});
