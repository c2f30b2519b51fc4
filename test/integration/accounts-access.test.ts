// Access across every dashboard route, and robustness of this routes to any JSON body.
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { addMember, randomIp, signupAccount, tokenHeader, type Account, type Member } from '../harness/accounts.ts';
import { DASHBOARD_ROUTES, ROLES, type Role } from '../../src/accounts/index.ts';

const FIELDS = [
  'email', 'password', 'role', 'label', 'store_id', 'access', 'name', 'enabled', 'current_password', 'new_password',
  'underpaid_tolerance_bps', 'accept_other_assets', 'settlement', 'payout_schedule', 'fees_paid_by_customer',
  'convert_into', 'hide_below_minimum', 'enabled_tokens', 'merchant_name', 'referral_code', 'status', 'fee_bps',
];

/** Bodies of the wrong shape: any JSON, and objects whose known fields hold values of any type. */
const anyBody = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 8 })), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
);

describeEachDb('accounts access', (h) => {
  let t: TestApp;
  let acct: Account;
  const tokens = {} as Record<Role, string>;
  let member: Member;
  beforeAll(async () => {
    t = await startTestApp(h.db());
    acct = await signupAccount(t.app);
    tokens.owner = acct.accessToken;
    for (const role of ['developer', 'finance', 'viewer'] as const) tokens[role] = (await addMember(t.app, acct.accessToken, role)).accessToken;
    member = await addMember(t.app, acct.accessToken, 'viewer');
  });
  afterAll(async () => { await t.close(); });

  it('declares the roles of spec 4.4 for the routes of this issue', () => {
    const O = ['owner'];
    const OD = ['owner', 'developer'];
    const ANY = [...ROLES];
    const expected: Record<string, string[]> = {
      'GET /merchant/me': ANY, 'POST /merchant/me/password': ANY,
      'GET /merchant/users': O, 'POST /merchant/users': O, 'PATCH /merchant/users/:id': O, 'DELETE /merchant/users/:id': O,
      'POST /merchant/api-keys': OD, 'GET /merchant/api-keys': OD, 'DELETE /merchant/api-keys/:id': OD,
      'GET /merchant/stores': ANY, 'POST /merchant/stores': OD, 'PATCH /merchant/stores/:id': OD,
      'PATCH /merchant/settings': O, 'POST /merchant/live': O, 'GET /merchant/audit': O,
    };
    for (const [route, roles] of Object.entries(expected)) expect([...(DASHBOARD_ROUTES.get(route)?.roles ?? [])], route).toEqual(roles);
  });

  it('keeps moving money to owners and finance: payout addresses, payouts and referral payouts (spec 5 roles)', () => {
    // Pinned here, not read from roles.ts: the route × role test below only checks routes against their own declarations.
    const OF = ['owner', 'finance'];
    for (const route of [
      'POST /merchant/payout-addresses', 'PATCH /merchant/payout-addresses/:id', 'DELETE /merchant/payout-addresses/:id',
      'GET /merchant/payouts/quote', 'POST /merchant/payouts', 'POST /merchant/payouts/:id/cancel',
      'POST /merchant/affiliate/payouts', 'POST /merchant/affiliate/payouts/:id/cancel',
    ]) expect([...(DASHBOARD_ROUTES.get(route)?.roles ?? [])], route).toEqual(OF);
  });

  it('answers 403 `insufficient permissions` on every dashboard route exactly to the roles it does not allow', async () => {
    const routes = [...DASHBOARD_ROUTES.values()];
    expect(routes.length).toBeGreaterThanOrEqual(14);
    const seen: string[] = [];
    for (const r of routes) {
      const url = r.url.replace(/:[^/]+/g, 'nonexistent');
      for (const role of ROLES) {
        const res = await t.app.inject({ method: r.method, url, headers: tokenHeader(tokens[role]), remoteAddress: randomIp(), ...(r.method === 'GET' ? {} : { payload: {} }) });
        const denied = res.statusCode === 403 && res.json().error === 'insufficient permissions';
        seen.push(`${r.method} ${r.url} ${role}: ${denied ? 'denied' : 'allowed'}`);
        expect(denied, `${r.method} ${r.url} as ${role}`).toBe(!r.roles.includes(role));
        if (!denied) expect(res.statusCode, `${r.method} ${r.url} as ${role}`).not.toBe(401);
      }
    }
    expect(seen).toContain('PATCH /merchant/settings viewer: denied');
    expect(seen).toContain('GET /merchant/stores viewer: allowed');
  });

  it('never answers 5xx to any JSON body on the routes of this issue', async () => {
    const routes: { method: 'POST' | 'PATCH' | 'DELETE'; url: string; auth?: 'owner' | 'admin' }[] = [
      { method: 'POST', url: '/merchant/signup' },
      { method: 'POST', url: '/merchant/login' },
      { method: 'POST', url: '/merchant/auth/refresh' },
      { method: 'POST', url: '/merchant/auth/logout' },
      { method: 'POST', url: '/merchant/auth/logout-all' },
      { method: 'POST', url: '/merchant/me/password', auth: 'owner' },
      { method: 'POST', url: '/merchant/users', auth: 'owner' },
      { method: 'PATCH', url: `/merchant/users/${member.id}`, auth: 'owner' },
      { method: 'PATCH', url: '/merchant/users/nonexistent', auth: 'owner' },
      { method: 'POST', url: '/merchant/api-keys?mode=test', auth: 'owner' },
      { method: 'POST', url: '/merchant/api-keys', auth: 'owner' },
      { method: 'DELETE', url: '/merchant/api-keys/nonexistent', auth: 'owner' },
      { method: 'POST', url: '/merchant/stores', auth: 'owner' },
      { method: 'PATCH', url: '/merchant/stores/nonexistent', auth: 'owner' },
      { method: 'PATCH', url: '/merchant/settings', auth: 'owner' },
      { method: 'POST', url: '/merchant/live', auth: 'owner' },
      { method: 'PATCH', url: `/admin/merchants/${acct.merchant.id}`, auth: 'admin' },
    ];
    for (const r of routes) {
      await fc.assert(fc.asyncProperty(anyBody, async (body) => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (r.auth === 'owner') Object.assign(headers, tokenHeader(tokens.owner));
        if (r.auth === 'admin') headers.authorization = 'Bearer test-admin-token';
        const res = await t.app.inject({ method: r.method, url: r.url, headers, payload: JSON.stringify(body), remoteAddress: randomIp() });
        expect(res.statusCode, `${r.method} ${r.url} ${JSON.stringify(body)}: ${res.body}`).toBeLessThan(500);
        expect(() => res.json()).not.toThrow();
      }), { numRuns: 25 });
    }
  });

  it('never answers 5xx to any query on the audit log and key lists', async () => {
    await fc.assert(fc.asyncProperty(
      fc.dictionary(fc.constantFrom('action', 'subject', 'payment_id', 'actor_id', 'from', 'to', 'limit', 'offset', 'mode'), fc.oneof(fc.string({ maxLength: 12 }), fc.integer().map(String), fc.constantFrom('2026-01-01', '-1', '9'.repeat(30), '%', '_.', 'é'))),
      async (q) => {
        for (const path of ['/merchant/audit', '/merchant/api-keys']) {
          const res = await t.app.inject({ method: 'GET', url: path, query: q, headers: tokenHeader(tokens.owner) });
          expect(res.statusCode, `${path} ${JSON.stringify(q)}: ${res.body}`).toBeLessThan(500);
        }
      },
    ), { numRuns: 60 });
  });
});
