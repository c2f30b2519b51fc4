// Sign-up and the two guards every other route stands on (spec 4.4 Session, 5, 7).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signupAccount, tokenHeader, uid, type Account } from '../harness/accounts.ts';
import { apiRoute, dashboardRoute, OWNER, ANY_ROLE } from '../../src/accounts/index.ts';
import { insertApiKey } from '../../src/accounts/api-keys.ts';
import { apiKeys, merchants } from '../../src/accounts/schema.ts';

describeEachDb('accounts core', (h) => {
  let t: TestApp;
  let acct: Account;
  beforeAll(async () => {
    t = await startTestApp(h.db(), {
      extraRoutes: (app, services) => {
        const authn = services.accounts.authn;
        apiRoute(app, authn, { method: 'GET', url: '/v1/__probe', readOnlyAllowed: true, handler: async (_r, _p, auth) => ({ livemode: auth.livemode, merchant: auth.merchantId }) });
        apiRoute(app, authn, { method: 'POST', url: '/v1/__probe', handler: async () => ({ ok: true }) });
        dashboardRoute(app, authn, { method: 'GET', url: '/merchant/__probe', roles: ANY_ROLE, handler: async (_r, _p, auth) => ({ role: auth.role }) });
        dashboardRoute(app, authn, { method: 'POST', url: '/merchant/__owner', roles: OWNER, handler: async () => ({ ok: true }) });
      },
    });
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });

  const inject = (opts: InjectOptions) => t.app.inject(opts);

  it('signs up with merchant, owner, two keys shown once, access token and refresh cookie', async () => {
    const email = `Owner-${uid()}@Example.com`;
    const res = await inject({ method: 'POST', url: '/merchant/signup', remoteAddress: randomIp(), payload: { merchant_name: 'Acme', email, password: 'longenough1', referral_code: 'abc' } });
    expect(res.statusCode).toBe(201);
    const b = res.json();
    expect(b.role).toBe('owner');
    expect(b.user.email).toBe(email.toLowerCase());
    expect(b.user.role).toBe('owner');
    expect(b.merchant).toMatchObject({
      name: 'Acme', status: 'active', fee_bps: 100, live_enabled: false, underpaid_tolerance_bps: 50,
      accept_other_assets: false, settlement: 'direct', payout_schedule: 'daily', fees_paid_by_customer: true,
      convert_into: 'cheapest', hide_below_minimum: false,
    });
    expect(b.merchant.enabled_tokens).toHaveLength(12);
    expect(b.api_keys).toHaveLength(2);
    expect(b.api_keys.map((k: { api_key: { livemode: boolean } }) => k.api_key.livemode).sort()).toEqual([false, true]);
    for (const k of b.api_keys) {
      expect(k.secret).toMatch(/^[0-9a-f]{64}$/);
      expect(k.api_key.last4).toBe(k.secret.slice(-4));
      expect(k.api_key.label).toBe('default');
      expect(k.api_key.access).toBe('full');
      expect(k.api_key.secret).toBeUndefined();
      expect(k.api_key.store_id).toBeUndefined();
    }
    expect(typeof b.access_token).toBe('string');
    expect(new Date(b.expires_at).getTime() - Date.now()).toBeGreaterThan(14 * 60 * 1000);
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('refresh_token='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/Path=\/merchant\/auth/);
    // only the hash of a key is stored
    const rows = await h.db().orm.select().from(apiKeys).where(eq(apiKeys.merchantId, b.merchant.id));
    for (const r of rows) expect(b.api_keys.map((k: { secret: string }) => k.secret)).not.toContain(r.secretHash);
  });

  it.each([
    [{ email: 'a@b.co', password: 'longenough1' }, 'merchant_name is required'],
    [{ merchant_name: '   ', email: 'a@b.co', password: 'longenough1' }, 'merchant_name is required'],
    [{ merchant_name: 7, email: 'a@b.co', password: 'longenough1' }, 'merchant_name is required'],
    // a name that is there but too long says so, as every other capped text field does
    [{ merchant_name: '\u{1F600}'.repeat(201), email: 'a@b.co', password: 'longenough1' }, 'merchant_name must be at most 200 characters'],
    [{ merchant_name: `  ${'x'.repeat(201)}  `, email: 'a@b.co', password: 'longenough1' }, 'merchant_name must be at most 200 characters'],
    [{ merchant_name: 'A\u0000B', email: 'a@b.co', password: 'longenough1' }, 'merchant_name must not contain NUL characters'],
    [{ merchant_name: 'X', email: 'not-an-email', password: 'longenough1' }, 'invalid email address'],
    [{ merchant_name: 'X', email: ['a@b.co'], password: 'longenough1' }, 'invalid email address'],
    [{ merchant_name: 'X', email: 'a@b.co', password: 'short' }, 'password must be at least 8 characters'],
    [{ merchant_name: 'X', email: 'a@b.co', password: 12345678 }, 'password must be at least 8 characters'],
  ])('refuses sign-up %j with 400 %s', async (payload, message) => {
    const res = await inject({ method: 'POST', url: '/merchant/signup', remoteAddress: randomIp(), payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
  });

  it('counts merchant_name in characters: 200 emoji are a name', async () => {
    const name = '\u{1F600}'.repeat(200);
    const res = await inject({ method: 'POST', url: '/merchant/signup', remoteAddress: randomIp(), payload: { merchant_name: name, email: `e-${uid()}@example.com`, password: 'longenough1' } });
    expect(res.statusCode).toBe(201);
    expect(res.json().merchant.name).toBe(name);
  });

  it('refuses a second sign-up with the same email (any case) with 409', async () => {
    const res = await inject({ method: 'POST', url: '/merchant/signup', remoteAddress: randomIp(), payload: { merchant_name: 'Again', email: acct.email.toUpperCase(), password: 'longenough1' } });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'email already registered' });
  });

  it('limits sign-ups to 5 a second per IP', async () => {
    const ip = randomIp();
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await inject({ method: 'POST', url: '/merchant/signup', remoteAddress: ip, payload: { merchant_name: 'R', email: 'bad', password: 'x' } });
      codes.push(r.statusCode);
    }
    expect(codes.slice(0, 5)).toEqual([400, 400, 400, 400, 400]);
    expect(codes.slice(5)).toEqual([429, 429]);
    const last = await inject({ method: 'POST', url: '/merchant/signup', remoteAddress: ip, payload: {} });
    expect(last.json()).toEqual({ error: 'rate limit exceeded' });
  });

  it('answers the API-key messages of spec 7', async () => {
    const missing = await inject({ method: 'GET', url: '/v1/__probe' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({ error: 'missing api key' });
    const invalid = await inject({ method: 'GET', url: '/v1/__probe', headers: keyHeader('f'.repeat(64)) });
    expect(invalid.statusCode).toBe(401);
    expect(invalid.json()).toEqual({ error: 'invalid api key' });
    const live = await inject({ method: 'GET', url: '/v1/__probe', headers: keyHeader(acct.liveKey) });
    expect(live.statusCode).toBe(403);
    expect(live.json()).toEqual({ error: 'live mode is off for this account: the owner can turn it on in the dashboard; until then use a test key' });
    const ok = await inject({ method: 'GET', url: '/v1/__probe', headers: keyHeader(acct.testKey) });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ livemode: false, merchant: acct.merchant.id });
  });

  it('prefers X-API-Key over Authorization', async () => {
    const res = await inject({ method: 'GET', url: '/v1/__probe', headers: { 'x-api-key': acct.testKey, authorization: 'Bearer nonsense' } });
    expect(res.statusCode).toBe(200);
    const res2 = await inject({ method: 'GET', url: '/v1/__probe', headers: { 'x-api-key': 'nonsense', authorization: `Bearer ${acct.testKey}` } });
    expect(res2.json()).toEqual({ error: 'invalid api key' });
  });

  it('stops a revoked key at once and a suspended account with 403', async () => {
    const other = await signupAccount(t.app);
    await h.db().orm.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, other.testKeyId));
    const revoked = await inject({ method: 'GET', url: '/v1/__probe', headers: keyHeader(other.testKey) });
    expect(revoked.json()).toEqual({ error: 'invalid api key' });
    const third = await signupAccount(t.app);
    await h.db().orm.update(merchants).set({ status: 'suspended' }).where(eq(merchants.id, third.merchant.id));
    for (const res of [
      await inject({ method: 'GET', url: '/v1/__probe', headers: keyHeader(third.testKey) }),
      await inject({ method: 'GET', url: '/merchant/__probe', headers: tokenHeader(third.accessToken) }),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'merchant account is suspended' });
    }
  });

  it('limits a key to 20 requests a second', async () => {
    const a = await signupAccount(t.app);
    const codes: number[] = [];
    for (let i = 0; i < 22; i++) codes.push((await inject({ method: 'GET', url: '/v1/__probe', headers: keyHeader(a.testKey) })).statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(20);
    expect(codes.slice(20)).toEqual([429, 429]);
  });

  it('counts the 20 a second per key: another key of the same account is not held back', async () => {
    const a = await signupAccount(t.app);
    const { secret: second } = await insertApiKey(h.db().orm, { merchantId: a.merchant.id, livemode: false, label: 'second', access: 'full', createdBy: null, at: new Date() });
    const probe = (key: string) => inject({ method: 'GET', url: '/v1/__probe', headers: keyHeader(key) });
    for (let i = 0; i < 20; i++) expect((await probe(a.testKey)).statusCode).toBe(200);
    expect((await probe(second)).statusCode).toBe(200);
    expect((await probe(a.testKey)).statusCode).toBe(429);
  });

  it('answers the access-token messages and checks roles', async () => {
    const missing = await inject({ method: 'GET', url: '/merchant/__probe' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({ error: 'missing token' });
    const bad = await inject({ method: 'GET', url: '/merchant/__probe', headers: tokenHeader('abc.def.ghi') });
    expect(bad.statusCode).toBe(401);
    expect(bad.json()).toEqual({ error: 'invalid or expired token' });
    const asKey = await inject({ method: 'GET', url: '/merchant/__probe', headers: tokenHeader(acct.testKey) });
    expect(asKey.json()).toEqual({ error: 'invalid or expired token' });
    const inUrl = await inject({ method: 'GET', url: `/merchant/__probe?access_token=${acct.accessToken}` });
    expect(inUrl.json()).toEqual({ error: 'missing token' });
    const ok = await inject({ method: 'GET', url: '/merchant/__probe', headers: tokenHeader(acct.accessToken) });
    expect(ok.json()).toEqual({ role: 'owner' });
    const owner = await inject({ method: 'POST', url: '/merchant/__owner', headers: tokenHeader(acct.accessToken) });
    expect(owner.statusCode).toBe(200);
  });
});
