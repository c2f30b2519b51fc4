import { describe, expect, it } from 'vitest';
import { maxInFlight } from './create-statement.ts';

describe('maxInFlight', () => {
  it('is half the pool, at least one, at most eight', () => {
    expect([1, 2, 3, 10, 16, 20, 100].map(maxInFlight)).toEqual([1, 1, 1, 5, 8, 8, 8]);
  });
});
