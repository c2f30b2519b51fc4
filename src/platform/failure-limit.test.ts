import { describe, expect, it } from 'vitest';
import { AppError } from './errors.ts';
import { MemoryRateLimiter } from './rate-limit.ts';
import { countFailure, refuseOverFailures } from './failure-limit.ts';

describe('failure limit', () => {
  const limit = { max: 2, windowMs: 1000 };

  it('refuses with 429 once max failures stand in the window, and admits again when the oldest leaves it', async () => {
    const l = new MemoryRateLimiter();
    await refuseOverFailures(l, 'k', limit, 0);
    await countFailure(l, 'k', limit, 0);
    await refuseOverFailures(l, 'k', limit, 10);
    await countFailure(l, 'k', limit, 500);
    const refused = await refuseOverFailures(l, 'k', limit, 600).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(429);
    await refuseOverFailures(l, 'other', limit, 600);
    await refuseOverFailures(l, 'k', limit, 1000);
  });

  it('checking counts nothing: only failures do', async () => {
    const l = new MemoryRateLimiter();
    for (let i = 0; i < 10; i++) await refuseOverFailures(l, 'k', limit, i);
    expect(await l.count('k', limit.windowMs, 10)).toBe(0);
  });
});
