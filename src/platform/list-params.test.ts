import { describe, expect, it } from 'vitest';
import { LIST_AUDIT, LIST_EVENTS, LIST_LEDGER, listParams, MAX_OFFSET } from './list-params.ts';

describe('list params', () => {
  it('applies defaults and replaces out-of-range values', () => {
    expect(listParams({})).toEqual({ limit: 50, offset: 0 });
    expect(listParams({ limit: '10', offset: '5' })).toEqual({ limit: 10, offset: 5 });
    expect(listParams({ limit: '0' })).toEqual({ limit: 50, offset: 0 });
    expect(listParams({ limit: '201' })).toEqual({ limit: 50, offset: 0 });
    expect(listParams({ limit: '200' })).toEqual({ limit: 200, offset: 0 });
    expect(listParams({ limit: 'abc', offset: '-3' })).toEqual({ limit: 50, offset: 0 });
    expect(listParams({ limit: '1.5' })).toEqual({ limit: 50, offset: 0 });
  });
  it('clamps an offset beyond the database integer range', () => {
    expect(listParams({ offset: '9'.repeat(30) })).toEqual({ limit: 50, offset: MAX_OFFSET });
    expect(listParams({ offset: String(MAX_OFFSET) }).offset).toBe(MAX_OFFSET);
  });
  it('uses the audit, ledger and events rules', () => {
    expect(listParams({}, LIST_AUDIT)).toEqual({ limit: 100, offset: 0 });
    expect(listParams({ limit: '500' }, LIST_AUDIT)).toEqual({ limit: 500, offset: 0 });
    expect(listParams({ limit: '501' }, LIST_LEDGER)).toEqual({ limit: 50, offset: 0 });
    expect(listParams({}, LIST_EVENTS)).toEqual({ limit: 100, offset: 0 });
  });
});
