// Spec 6.2 and 6.3 field by field: the exact fields of a checkout `payment:update` (type, payment and
// the older flat form), the dashboard's (the same plus merchant_id, the whole payment), and the
// dashboard's `payout_address:update` {address, deleted} and `balance:update` {livemode, balances},
// each as the REST routes give the objects.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { ADDR } from '../harness/settlement.ts';
import { ask, closeSockets, collect, commitEvent, connect, fakePayment, next, until, type SocketApp, startSocketApp } from './realtime-support.ts';

type Json = Record<string, unknown>;
/** The flat form of spec 6.2, besides type and payment. */
const FLAT = ['id', 'livemode', 'order_id', 'status', 'tx_id', 'confirmations', 'crypto_amount', 'token', 'chain'];
const keys = (o: unknown) => Object.keys(o as Json).sort();

describeEachDb('socket payloads, field by field', (h) => {
  let t: SocketApp;
  let owner: Account;
  beforeAll(async () => {
    t = await startSocketApp(h.db());
    owner = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });
  afterEach(() => closeSockets());

  const dashboard = async () => {
    const s = connect(`${t.url}/merchant`, { reconnection: false, auth: { token: owner.accessToken } });
    await next(s, 'session');
    return s;
  };
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Json) =>
    t.app.inject({ method, url, remoteAddress: randomIp(), headers: tokenHeader(owner.accessToken), ...(payload ? { payload } : {}) });

  it('checkout payment:update carries type, payment and the flat form, nothing else; the dashboard\'s adds merchant_id', async () => {
    const p = fakePayment(owner.merchant.id);
    t.payments.set(p.checkout_token as string, p);
    const s = connect(t.url);
    const snapshot = next<Json>(s, 'payment:update');
    await ask(s, 'subscribe', p.checkout_token);
    // no deposit yet: the flat form has no tx_id, confirmations nor confirmed_at
    expect(keys(await snapshot)).toEqual(['type', 'payment', ...FLAT.filter((f) => f !== 'tx_id' && f !== 'confirmations')].sort());
    const got = collect<Json>(s, 'payment:update');
    const dash = await dashboard();
    const dashGot = collect<Json>(dash, 'payment:update');
    const detecting = { ...p, status: 'detecting', received_amount: '0.0004', deposits: [{ tx_id: 'tx-1', amount: '0.0004', confirmations: 1, confirmations_required: 3 }] };
    await commitEvent(t.platform.db, { type: 'payment.detecting', merchantId: owner.merchant.id, paymentId: p.id, data: detecting });
    await commitEvent(t.platform.db, { type: 'payment.confirmed', merchantId: owner.merchant.id, paymentId: p.id, data: { ...detecting, status: 'confirmed', confirmed_at: '2026-01-05T12:00:00.000Z' } });
    await until(() => got.length >= 2 && dashGot.length >= 2);
    expect(keys(got[0])).toEqual(['type', 'payment', ...FLAT].sort());
    expect(keys(got[1])).toEqual(['type', 'payment', ...FLAT, 'confirmed_at'].sort());
    expect(got[1]).toMatchObject({ type: 'payment.confirmed', id: p.id, livemode: false, order_id: p.order_id, status: 'confirmed', tx_id: 'tx-1', confirmations: 1, crypto_amount: '0.0004', token: 'BTC', chain: 'bitcoin', confirmed_at: '2026-01-05T12:00:00.000Z' });
    expect(keys(dashGot[1])).toEqual(['type', 'payment', ...FLAT, 'confirmed_at', 'merchant_id'].sort());
    expect(dashGot[1].merchant_id).toBe(owner.merchant.id);
    expect((dashGot[1].payment as Json).metadata).toEqual(p.metadata);
  });

  it('payout_address:update is {address, deleted} with the address as the REST routes give it', async () => {
    const s = await dashboard();
    const got = collect<Json>(s, 'payout_address:update');
    const created = await call('POST', '/merchant/payout-addresses?mode=test', { token: 'USDT_TRC20', address: ADDR.TRON, password: owner.password });
    expect(created.statusCode, created.body).toBe(201);
    const address = created.json().address as Json;
    await until(() => got.length >= 1);
    expect(got[0]).toEqual({ address, deleted: false });
    const removed = await call('DELETE', `/merchant/payout-addresses/${address.id as string}?mode=test`);
    expect(removed.statusCode, removed.body).toBe(200);
    await until(() => got.length >= 2);
    expect(keys(got[1])).toEqual(['address', 'deleted']);
    expect(got[1]).toMatchObject({ address: { id: address.id }, deleted: true });
  });

  it('balance:update is {livemode, balances} with the balances GET /merchant/balances gives', async () => {
    const s = await dashboard();
    const got = collect<Json>(s, 'balance:update');
    await t.services.settlement.adjust({ merchant_id: owner.merchant.id, livemode: true, token: 'USDT_TRC20', amount: '12.5', note: 'funding' }, { kind: 'admin' });
    await until(() => got.length >= 1);
    const rest = (await call('GET', '/merchant/balances')).json();
    expect(keys(got[0])).toEqual(['balances', 'livemode']);
    expect(got[0]).toEqual({ livemode: true, balances: rest.balances });
  });
});
