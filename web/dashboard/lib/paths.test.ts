import { describe, expect, it } from 'vitest';
import { APP_PATHS, PAGES, matchPage, mayOpen } from './paths.ts';

describe('dashboard paths', () => {
  it('names the page of a path, with its id', () => {
    expect(matchPage('/')).toEqual({ page: 'overview', id: undefined });
    expect(matchPage('/payments')).toEqual({ page: 'payments', id: undefined });
    expect(matchPage('/payments/pay_1%20x')).toEqual({ page: 'payment', id: 'pay_1 x' });
    expect(matchPage('/payments/a/b')).toBeNull();
    expect(matchPage('/nowhere')).toBeNull();
  });
  it('opens pages by role as spec 5 gives them', () => {
    expect(mayOpen('team', 'owner')).toBe(true);
    for (const role of ['developer', 'finance', 'viewer'] as const) for (const p of ['team', 'settings', 'audit'] as const) expect(mayOpen(p, role)).toBe(false);
    expect(mayOpen('referrals', 'finance')).toBe(true);
    expect(mayOpen('referrals', 'developer')).toBe(false);
    expect(mayOpen('payments', 'viewer')).toBe(true);
  });
  it('never takes a path of the API', () => {
    for (const p of APP_PATHS) expect(p, p).not.toMatch(/^\/(v1|checkout|tokens|merchant|l|referrals|pay|admin|socket\.io|assets|openapi\.json|docs|healthz|metrics)(\/|$)/);
    expect(Object.keys(PAGES)).toHaveLength(15);
  });
});
