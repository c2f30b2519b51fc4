// Operator routes for accounts (CONTRACT.md "Operator API"): GET /admin/merchants, PATCH /admin/merchants/{id}.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, PASSWORD, randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { apiRoute } from '../../src/accounts/index.ts';
import { auditEntries } from '../../src/accounts/schema.ts';
import { adminTokenMatches } from '../../src/admin/index.ts';

const ADMIN = { authorization: 'Bearer test-admin-token' };

describeEachDb('operator merchants', (h) => {
  let t: TestApp;
  let acct: Account;
  beforeAll(async () => {
    t = await startTestApp(h.db(), {
      extraRoutes: (app, services) => {
        apiRoute(app, services.accounts.authn, { method: 'GET', url: '/v1/__ping', handler: async () => ({ ok: true }) });
      },
    });
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });

  const inject = (opts: InjectOptions) => t.app.inject({ remoteAddress: randomIp(), ...opts });
  const patch = (id: string, payload: unknown, headers: Record<string, string> = ADMIN) => inject({ method: 'PATCH', url: `/admin/merchants/${id}`, headers, payload: payload as object });

  it('lists merchants newest first', async () => {
    const b = await signupAccount(t.app);
    const res = await inject({ method: 'GET', url: '/admin/merchants', headers: ADMIN });
    expect(res.statusCode).toBe(200);
    const ids = res.json().merchants.map((m: { id: string }) => m.id);
    expect(ids.indexOf(b.merchant.id)).toBeLessThan(ids.indexOf(acct.merchant.id));
    expect(res.json().merchants[0]).toHaveProperty('fee_bps');
  });

  it.each([
    [{}], [{ authorization: 'Bearer wrong' }], [{ authorization: 'Bearer test-admin-token-and-more' }], [{ authorization: 'test-admin-token' }],
  ])('answers 401 {"error":"invalid admin token"} with headers %j', async (headers) => {
    for (const res of [await inject({ method: 'GET', url: '/admin/merchants', headers }), await patch(acct.merchant.id, { fee_bps: 0 }, headers)]) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'invalid admin token' });
    }
  });

  it('suspends: the account gets 403 on keys, tokens and sign-in; reinstating restores it; audited as admin merchant.updated', async () => {
    const a = await signupAccount(t.app);
    expect((await inject({ method: 'GET', url: '/v1/__ping', headers: keyHeader(a.testKey) })).statusCode).toBe(200);
    const res = await patch(a.merchant.id, { status: 'suspended' });
    expect(res.statusCode).toBe(200);
    expect(res.json().merchant.status).toBe('suspended');
    for (const r of [
      await inject({ method: 'GET', url: '/v1/__ping', headers: keyHeader(a.testKey) }),
      await inject({ method: 'GET', url: '/merchant/me', headers: tokenHeader(a.accessToken) }),
      await inject({ method: 'POST', url: '/merchant/login', payload: { email: a.email, password: PASSWORD } }),
    ]) {
      expect(r.statusCode).toBe(403);
      expect(r.json()).toEqual({ error: 'merchant account is suspended' });
    }
    expect((await patch(a.merchant.id, { status: 'active' })).json().merchant.status).toBe('active');
    expect((await inject({ method: 'GET', url: '/v1/__ping', headers: keyHeader(a.testKey) })).statusCode).toBe(200);
    const entries = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, a.merchant.id), eq(auditEntries.action, 'merchant.updated')));
    expect(entries).toHaveLength(2);
    expect(entries[0].actor).toMatchObject({ kind: 'admin', merchant_id: a.merchant.id });
    expect(entries.map((e) => (e.after as { status: string }).status).sort()).toEqual(['active', 'suspended']);
  });

  it('sets fee_bps from 0 to 10000', async () => {
    expect((await patch(acct.merchant.id, { fee_bps: 0 })).json().merchant.fee_bps).toBe(0);
    expect((await patch(acct.merchant.id, { fee_bps: 10000 })).json().merchant.fee_bps).toBe(10000);
    const [entry] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, acct.merchant.id), eq(auditEntries.action, 'merchant.updated'))).limit(1);
    expect(Object.keys(entry.after as object)).toEqual(['fee_bps']);
  });

  it.each([
    [{}, 'nothing to update'],
    [{ status: 'closed' }, 'status must be "active" or "suspended"'],
    [{ status: null }, 'status must be "active" or "suspended"'],
    [{ fee_bps: -1 }, 'fee_bps must be a whole number between 0 and 10000'],
    [{ fee_bps: 10001 }, 'fee_bps must be a whole number between 0 and 10000'],
    [{ fee_bps: 1.5 }, 'fee_bps must be a whole number between 0 and 10000'],
    [{ fee_bps: '100' }, 'fee_bps must be a whole number between 0 and 10000'],
  ])('answers 400 to %j with %s', async (payload, message) => {
    const res = await patch(acct.merchant.id, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
  });

  it('answers 404 `not found` for an unknown merchant', async () => {
    const res = await patch('mer_nope', { fee_bps: 5 });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not found' });
  });
});

describeEachDb('operator API without ADMIN_TOKEN', (h) => {
  let t: TestApp;
  beforeAll(async () => { t = await startTestApp(h.db(), { env: { ADMIN_TOKEN: '' } }); });
  afterAll(async () => { await t.close(); });

  it('answers 404 to every operator route, whatever the token', async () => {
    expect(t.config.adminToken).toBeNull();
    for (const res of [
      await t.app.inject({ method: 'GET', url: '/admin/merchants', headers: ADMIN }),
      await t.app.inject({ method: 'PATCH', url: '/admin/merchants/mer_x', headers: { authorization: 'Bearer ' }, payload: { fee_bps: 1 } }),
    ]) expect(res.statusCode).toBe(404);
  });
});

describe('adminTokenMatches', () => {
  it('accepts exactly the token', () => {
    expect(adminTokenMatches('abc', 'abc')).toBe(true);
    for (const g of [undefined, '', 'ab', 'abcd', 'ABC']) expect(adminTokenMatches('abc', g)).toBe(false);
  });
});
