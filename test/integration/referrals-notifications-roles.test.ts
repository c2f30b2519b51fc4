// The roles of the routes of issue 16's first half (spec 4.4 "Referral payouts", CONTRACT.md
// "Referral program", "Notifications", "Invitations"), and every role tried on every one of them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount, tokenHeader } from '../harness/accounts.ts';
import { member } from '../harness/affiliate.ts';
import { DASHBOARD_ROUTES, ROLES, type Role } from '../../src/accounts/index.ts';

const O = ['owner'];
const OF = ['owner', 'finance'];
const ANY = [...ROLES];
const EXPECTED: Record<string, string[]> = {
  'GET /merchant/affiliate': OF, 'GET /merchant/affiliate/referrals': OF, 'GET /merchant/affiliate/commissions': OF,
  'POST /merchant/affiliate/payouts': OF, 'GET /merchant/affiliate/payouts': OF, 'GET /merchant/affiliate/payouts/:id': OF,
  'POST /merchant/affiliate/payouts/:id/cancel': OF,
  'GET /merchant/notifications': ANY, 'POST /merchant/notifications/read': ANY,
  'POST /merchant/invitations': O, 'GET /merchant/invitations': O, 'DELETE /merchant/invitations/:id': O,
};

describeEachDb('roles of the referral, notification and invitation routes', (h) => {
  let t: TestApp;
  const tokens = {} as Record<Role, string>;
  beforeAll(async () => {
    t = await startTestApp(h.db());
    const acct = await signupAccount(t.app);
    tokens.owner = acct.accessToken;
    for (const role of ['developer', 'finance', 'viewer'] as const) tokens[role] = await (await member(t, acct.merchant.id, role)).token();
  });
  afterAll(async () => { await t.close(); });

  it('declares the roles of the spec and the contract', () => {
    for (const [route, roles] of Object.entries(EXPECTED)) expect([...(DASHBOARD_ROUTES.get(route)?.roles ?? [])], route).toEqual(roles);
  });

  it('answers 403 `insufficient permissions` to exactly the roles a route does not allow, and never 401 or 5xx to the others', async () => {
    for (const key of Object.keys(EXPECTED)) {
      const r = DASHBOARD_ROUTES.get(key)!;
      const url = r.url.replace(/:[^/]+/g, 'nonexistent');
      for (const role of ROLES) {
        const res = await t.app.inject({ method: r.method, url, headers: tokenHeader(tokens[role]), remoteAddress: randomIp(), ...(r.method === 'GET' ? {} : { payload: {} }) });
        const denied = res.statusCode === 403 && res.json().error === 'insufficient permissions';
        expect(denied, `${key} as ${role}: ${res.statusCode} ${res.body}`).toBe(!r.roles.includes(role));
        if (!denied) expect(res.statusCode, `${key} as ${role}`).not.toBe(401);
        expect(res.statusCode, `${key} as ${role}`).toBeLessThan(500);
      }
    }
  });
});
