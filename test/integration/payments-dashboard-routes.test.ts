// Dashboard payments routes: roles, the mode switch, list rules of the events timeline.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { createPayment, type Json } from '../harness/payments.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { ANY_ROLE, DASHBOARD_ROUTES, SIMULATORS } from '../../src/accounts/index.ts';

describeEachDb('payments dashboard routes', (h) => {
  let t: TestApp;
  let acct: Account;
  const clock = new ManualClock(new Date());
  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock, env: { SIMULATION_STEP_MS: '10' } });
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });
  beforeEach(() => { clock.advance(1100); });

  const get = async (url: string) => (await t.app.inject({ method: 'GET', url, headers: tokenHeader(acct.accessToken) })).json();

  it('declares every route with its roles: any role reads, owners, developers and finance simulate', () => {
    for (const url of ['/merchant/tokens', '/merchant/dashboard', '/merchant/payments', '/merchant/payments/:id', '/merchant/payments/:id/events', '/merchant/payments/:id/trail']) {
      expect(DASHBOARD_ROUTES.get(`GET ${url}`)?.roles).toEqual(ANY_ROLE);
    }
    expect(DASHBOARD_ROUTES.get('POST /merchant/payments/:id/simulate')?.roles).toEqual(SIMULATORS);
  });

  it('lists live payments without ?mode=test and test payments with it', async () => {
    const p = await createPayment(t.app, acct.testKey);
    const test = await get('/merchant/payments?mode=test');
    expect(test.payments.map((x: Json) => x.id)).toContain(p.id);
    expect(test).toMatchObject({ limit: 50, offset: 0 });
    const live = await get('/merchant/payments');
    expect(live).toEqual({ payments: [], total: 0, limit: 50, offset: 0 });
  });

  it('pages the events timeline with the rules of spec 4.4 (default 100), oldest first', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: 'TRX', simulate: 'paid_late' });
    for (let i = 0; i < 5; i++) { clock.advance(10); await t.services.payments.runDue(); }
    const all = await get(`/merchant/payments/${p.id}/events?limit=0&offset=-1`);
    expect(all.limit).toBe(100);
    expect(all.offset).toBe(0);
    expect(all.events.map((e: Json) => e.type)).toEqual(['payment.expired', 'payment.detecting', 'payment.late_deposit', 'payment.confirmed']);
    const page = await get(`/merchant/payments/${p.id}/events?limit=2&offset=1`);
    expect(page.events.map((e: Json) => e.type)).toEqual(['payment.detecting', 'payment.late_deposit']);
    expect((await t.app.inject({ method: 'GET', url: '/merchant/payments/pay_x/events', headers: tokenHeader(acct.accessToken) })).json()).toEqual({ error: 'payment not found' });
  });

  it('never shows another merchant\'s payment: its read, events, trail and simulate answer 404', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: 'TRX' });
    const stranger = await signupAccount(t.app);
    const as = (method: 'GET' | 'POST', url: string) =>
      t.app.inject({ method, url, headers: tokenHeader(stranger.accessToken), ...(method === 'POST' ? { payload: { outcome: 'confirmed' } } : {}) });
    for (const [method, url] of [['GET', ''], ['GET', '/events'], ['GET', '/trail'], ['POST', '/simulate']] as const) {
      const res = await as(method, `/merchant/payments/${p.id}${url}`);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({ error: 'payment not found' });
    }
    // nothing was started on it
    expect((await get(`/merchant/payments/${p.id}`)).simulation).toBeUndefined();
  });

  it('writes decimal strings without trailing zeros', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: 'USDT_TRC20', amount_usd: '25.50' });
    expect(p.usd_amount).toBe('25.5');
    for (const k of ['usd_amount', 'amount_due_usd', 'crypto_amount', 'rate_locked', 'network_fee', 'network_fee_usd']) expect(p[k]).not.toMatch(/\.\d*0$|\.$/);
  });
});
