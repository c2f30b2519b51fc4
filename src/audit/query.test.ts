import { describe, expect, it } from 'vitest';
import { parseDay } from './query.ts';

describe('parseDay', () => {
  it('reads real YYYY-MM-DD days as UTC midnight', () => {
    expect(parseDay('2026-03-01')?.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(parseDay('2024-02-29')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
  });
  it('refuses other shapes and days that do not exist', () => {
    for (const v of ['2026-02-29', '2026-3-1', '20260301', '2026-03-01T00:00:00Z', '', '2026-00-10']) expect(parseDay(v)).toBeNull();
  });
});
