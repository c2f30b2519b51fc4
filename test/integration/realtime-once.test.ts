// Finding 10 of the hardening issue: a direct settlement that completes, and a payout approved,
// rejected or sent, reach the dashboard socket once each (`settlement:update`, `payout:update`),
// never a second time through their webhook events. Counted on a real socket.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { keyHeader, randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { ADDR } from '../harness/settlement.ts';
import { createPayment } from '../harness/payments.ts';
import { closeSockets, connect, next, sleep, startSocketApp, until, type SocketApp } from './realtime-support.ts';

const ADMIN = { authorization: 'Bearer test-admin-token' };

describeEachDb('settlement and payout changes reach the dashboard socket once', (h) => {
  let t: SocketApp;
  let a: Account;
  const got: { event: string; id: string; status: string }[] = [];
  beforeAll(async () => {
    t = await startSocketApp(h.db(), { env: { SIMULATION_STEP_MS: '0' } });
    a = await signupAccount(t.app);
    const s = connect(`${t.url}/merchant`, { reconnection: false, auth: { token: a.accessToken } });
    await next(s, 'session');
    s.onAny((event: string, payload: { id?: string; status?: string }) => {
      if (event === 'settlement:update' || event === 'payout:update') got.push({ event, id: String(payload.id), status: String(payload.status) });
    });
  });
  afterAll(async () => { closeSockets(); await t.close(); });
  afterEach(() => { got.length = 0; });

  const call = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>, headers = tokenHeader(a.accessToken)) =>
    t.app.inject({ method, url, headers, remoteAddress: randomIp(), ...(payload ? { payload } : {}) });
  const of = (event: string, id: string) => got.filter((g) => g.event === event && g.id === id).map((g) => g.status);

  it('a direct settlement that completes: one settlement:update', async () => {
    // a test payment settles on paper at once to the test payout address: a direct settlement completed
    expect((await call('POST', '/merchant/payout-addresses?mode=test', { token: 'ETH', address: ADDR.EVM, password: a.password })).statusCode).toBe(201);
    const p = await createPayment(t.app, a.testKey);
    const sim = await t.app.inject({ method: 'POST', url: `/v1/payments/${p.id}/simulate`, headers: keyHeader(a.testKey), remoteAddress: randomIp(), payload: { outcome: 'confirmed' } });
    expect(sim.statusCode).toBe(200);
    for (let i = 0; i < 50 && !got.some((g) => g.event === 'settlement:update' && g.status === 'completed'); i++) {
      await t.services.payments.runDue();
      await t.platform.outbox.drainNow();
      await sleep(50);
    }
    await sleep(300);
    const [done] = got.filter((g) => g.event === 'settlement:update' && g.status === 'completed');
    expect(of('settlement:update', done.id)).toEqual(['completed']);
  });

  it('a payout requested, approved and sent, another rejected: one payout:update for each change', async () => {
    expect((await call('POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON, password: a.password })).statusCode).toBe(201);
    expect((await call('POST', '/admin/ledger/adjustments', { merchant_id: a.merchant.id, livemode: true, token: 'USDT_TRC20', amount: '1000', note: 'opening' }, ADMIN)).statusCode).toBe(201);
    const address = (await call('GET', '/merchant/payout-addresses')).json().addresses.find((x: { token: string }) => x.token === 'USDT_TRC20');
    const sent = (await call('POST', '/merchant/payouts', { address_id: address.id, amount: '100' })).json().payout;
    const rejected = (await call('POST', '/merchant/payouts', { address_id: address.id, amount: '50' })).json().payout;
    expect((await call('POST', `/admin/payouts/${sent.id}/approve`, {}, ADMIN)).statusCode).toBe(200);
    expect((await call('POST', `/admin/payouts/${sent.id}/sent`, { tx_id: 'ab'.repeat(32) }, ADMIN)).statusCode).toBe(200);
    expect((await call('POST', `/admin/payouts/${rejected.id}/reject`, { note: 'not today' }, ADMIN)).statusCode).toBe(200);
    await until(() => of('payout:update', rejected.id).includes('rejected') && of('payout:update', sent.id).includes('sent'), 10_000);
    await sleep(300);
    expect(of('payout:update', sent.id)).toEqual(['requested', 'approved', 'sent']);
    expect(of('payout:update', rejected.id)).toEqual(['requested', 'rejected']);
  });
});
