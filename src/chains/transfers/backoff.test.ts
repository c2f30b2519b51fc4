import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_DELAYS_MS, retryDelay } from './backoff.ts';

describe('retryDelay', () => {
  it('waits longer after each failure, and gives up after the fifth', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, DEFAULT_RETRY_DELAYS_MS))).toEqual([30_000, 120_000, 600_000, 1_800_000]);
    expect(retryDelay(5, DEFAULT_RETRY_DELAYS_MS)).toBeNull();
    expect(retryDelay(1, [])).toBeNull();
  });
});
