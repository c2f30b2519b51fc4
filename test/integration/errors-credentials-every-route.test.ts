// Spec 7 "Authentication and access" on every real route, read from the app's own route tree so a
// route added later is covered too. accounts-core checks the messages on a probe route built with
// the same wrappers; this checks that every /v1 and /merchant route is in fact behind them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signIn, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { listRoutes, type RouteEntry } from '../harness/route-list.ts';
import { merchants } from '../../src/accounts/index.ts';
import { insertApiKey } from '../../src/accounts/api-keys.ts';

const LIVE_OFF = 'live mode is off for this account: the owner can turn it on in the dashboard; until then use a test key';
const READ_ONLY = 'this api key is read-only: it can only read (GET)';
const SUSPENDED = 'merchant account is suspended';
// spec 4.1 / 5.5: what a read-only key may do
const READ_ALLOWED = new Set(['GET /v1/payments', 'GET /v1/payments/:id', 'GET /v1/tokens', 'GET /v1/webhook']);
// spec 4.4: every dashboard route takes an access token but signup, login and refresh; CONTRACT.md: and accepting an invitation
const NO_TOKEN_ROUTES = ['POST /merchant/signup', 'POST /merchant/login', 'POST /merchant/auth/refresh', 'POST /merchant/invitations/accept'];

const name = (r: RouteEntry): string => `${r.method} ${r.path}`;

describeEachDb('spec 7 credential answers on every route', (h) => {
  let t: TestApp;
  let acct: Account;
  let suspended: Account;
  let readKey: string;
  beforeAll(async () => {
    t = await startTestApp(h.db());
    acct = await signupAccount(t.app);
    suspended = await signupAccount(t.app);
    readKey = (await insertApiKey(h.db().orm, { merchantId: acct.merchant.id, livemode: false, label: 'r', access: 'read', createdBy: null, at: new Date() })).secret;
  });
  afterAll(async () => { await t.close(); });

  const call = (r: RouteEntry, headers: Record<string, string>) => {
    const opts: InjectOptions = { method: r.method as InjectOptions['method'], url: r.path.replace(/:[A-Za-z_]+/g, 'zz_nope'), headers, remoteAddress: randomIp() };
    if (r.method !== 'GET' && r.method !== 'DELETE') opts.payload = {};
    return t.app.inject(opts);
  };
  const answer = async (r: RouteEntry, headers: Record<string, string>) => {
    const res = await call(r, headers);
    return [name(r), res.statusCode, res.json()];
  };

  it('every /v1 route: 401 missing api key, 401 invalid api key, 403 live mode off, 403 read-only key on a write', async () => {
    const routes = listRoutes(t.app).filter((r) => r.path.startsWith('/v1/'));
    expect(routes.length).toBeGreaterThanOrEqual(10);
    for (const r of routes) {
      expect(await answer(r, {})).toEqual([name(r), 401, { error: 'missing api key' }]);
      expect(await answer(r, keyHeader('f'.repeat(64)))).toEqual([name(r), 401, { error: 'invalid api key' }]);
      expect(await answer(r, keyHeader(acct.liveKey))).toEqual([name(r), 403, { error: LIVE_OFF }]);
      const read = await call(r, keyHeader(readKey));
      if (READ_ALLOWED.has(name(r))) expect(read.json(), name(r)).not.toEqual({ error: READ_ONLY });
      else expect([name(r), read.statusCode, read.json()]).toEqual([name(r), 403, { error: READ_ONLY }]);
    }
  });

  it('every dashboard route but signup, login, refresh and accepting an invitation: 401 missing token, 401 invalid or expired token (an API key is no access token)', async () => {
    const routes = listRoutes(t.app).filter((r) => r.path.startsWith('/merchant/'));
    const open: string[] = [];
    for (const r of routes) {
      const none = await call(r, {});
      if (none.statusCode !== 401 || none.json().error !== 'missing token') { open.push(name(r)); continue; }
      expect(await answer(r, tokenHeader('abc.def.ghi'))).toEqual([name(r), 401, { error: 'invalid or expired token' }]);
      expect(await answer(r, keyHeader(acct.testKey))).toEqual([name(r), 401, { error: 'invalid or expired token' }]);
    }
    expect(open.sort()).toEqual([...NO_TOKEN_ROUTES].sort());
  });

  it('every operator route (/admin, /metrics): 401 invalid admin token without the right token, 404 not found with no ADMIN_TOKEN (CONTRACT.md)', async () => {
    const off = await startTestApp(h.db(), { env: { ADMIN_TOKEN: '' } });
    try {
      const routes = listRoutes(t.app).filter((r) => r.path.startsWith('/admin/') || r.path === '/metrics');
      expect(routes.length).toBeGreaterThanOrEqual(20);
      for (const r of routes) {
        expect(await answer(r, {})).toEqual([name(r), 401, { error: 'invalid admin token' }]);
        expect(await answer(r, { authorization: 'Bearer wrong' })).toEqual([name(r), 401, { error: 'invalid admin token' }]);
        const res = await off.app.inject({ method: r.method as InjectOptions['method'], url: r.path.replace(/:[A-Za-z_]+/g, 'zz_nope'), headers: { authorization: 'Bearer test-admin-token' }, remoteAddress: randomIp() });
        expect([name(r), res.statusCode, res.json()]).toEqual([name(r), 404, { error: 'not found' }]);
      }
    } finally {
      await off.close();
    }
  });

  it('every route that takes a body answers one that is not JSON 400 invalid request body, after its credential check', async () => {
    const routes = listRoutes(t.app).filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && !r.path.startsWith('/admin/') && r.path !== '/metrics');
    expect(routes.length).toBeGreaterThanOrEqual(40);
    const notJson = async (r: RouteEntry, headers: Record<string, string>) => {
      const res = await t.app.inject({ method: r.method as InjectOptions['method'], url: r.path.replace(/:[A-Za-z_|]+/g, 'zz_nope'), headers: { ...headers, 'content-type': 'application/json' }, payload: '{"amount":', remoteAddress: randomIp() });
      return [name(r), res.statusCode, res.json()];
    };
    for (const r of routes) {
      // refresh's credential is its cookie (spec 7: 401 `no refresh token` without it); sign-out takes
      // the access token or the cookie. The body fails before either route runs: no session changes.
      const credential = r.path.startsWith('/v1/') ? keyHeader(acct.testKey)
        : r.path === '/merchant/auth/refresh' ? { cookie: `refresh_token=${'a'.repeat(64)}` }
          : r.path.startsWith('/merchant/') && !NO_TOKEN_ROUTES.includes(name(r)) ? tokenHeader(acct.accessToken) : null;
      expect(await notJson(r, credential ?? {})).toEqual([name(r), 400, { error: 'invalid request body' }]);
      if (credential) expect((await notJson(r, {}))[1], name(r)).toBe(401);
    }
  });

  it('a suspended account: 403 merchant account is suspended on every /v1 and token-taking dashboard route', async () => {
    // two sessions: signing out ends the one it is made with, so each sign-out route gets its own
    const sessions = [suspended.accessToken, (await signIn(t.app, suspended.email)).accessToken];
    await h.db().orm.update(merchants).set({ status: 'suspended' }).where(eq(merchants.id, suspended.merchant.id));
    const routes = listRoutes(t.app).filter((r) => r.path.startsWith('/v1/') || (r.path.startsWith('/merchant/') && !NO_TOKEN_ROUTES.includes(name(r))));
    for (const r of routes.filter((x) => !x.path.startsWith('/merchant/auth/logout'))) {
      const headers = r.path.startsWith('/v1/') ? keyHeader(suspended.testKey) : tokenHeader(sessions[0]);
      expect(await answer(r, headers)).toEqual([name(r), 403, { error: SUSPENDED }]);
    }
    // the sign-outs last, each with a session still open (accounts-session checks they end it all the same)
    const logout = routes.find((r) => r.path === '/merchant/auth/logout')!;
    const logoutAll = routes.find((r) => r.path === '/merchant/auth/logout-all')!;
    expect(await answer(logout, tokenHeader(sessions[0]))).toEqual([name(logout), 403, { error: SUSPENDED }]);
    expect(await answer(logoutAll, tokenHeader(sessions[1]))).toEqual([name(logoutAll), 403, { error: SUSPENDED }]);
  });
});
