// Spec 7 "Account routes": 404 `not found` for an unknown member, store, key, delivery or payout
// address. Each route of each subject is asked with an id that names nothing, one that is not an id
// at all, and the id of another merchant's (the same 404, never 403 or 500), and that one is left as
// it was.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { addMember, randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { ADDR } from '../harness/settlement.ts';
import { deliveries } from '../../src/webhooks/index.ts';
import { insertDeliveries } from '../../src/webhooks/delivery-store.ts';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

describeEachDb('spec 7: 404 not found on the account routes', (h) => {
  let t: TestApp;
  let a: Account;
  let b: Account;
  const theirs: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp(h.db());
    [a, b] = [await signupAccount(t.app), await signupAccount(t.app)];
    theirs.member = (await addMember(t.app, b.accessToken, 'developer')).id;
    theirs.owner = b.user.id;
    const store = await ask(b, 'POST', '/merchant/stores', { name: 'Their shop' });
    expect(store.statusCode, store.body).toBe(201);
    theirs.store = store.json().store.id;
    theirs.key = b.testKeyId;
    const [delivery] = await insertDeliveries(h.db().orm, [{
      merchantId: b.merchant.id, livemode: false, target: 'account', url: 'https://hooks.example.com/x',
      paymentId: null, eventId: 'evt_theirs', eventType: 'payment.failed', payload: '{}', at: new Date(),
    }]);
    await h.db().orm.update(deliveries).set({ status: 'failed', attempts: 7 }).where(eq(deliveries.id, delivery.id));
    theirs.delivery = delivery.id;
    const address = await ask(b, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON, password: b.password });
    expect(address.statusCode, address.body).toBe(201);
    theirs.address = address.json().address.id;
  });
  afterAll(async () => { await t.close(); });

  function ask(who: Account, method: Method, url: string, payload?: Record<string, unknown>) {
    return t.app.inject({ method, url, remoteAddress: randomIp(), headers: tokenHeader(who.accessToken), ...(payload ? { payload } : {}) });
  }

  /** Every route naming one subject by id, with a body that would pass for a subject of the caller's own. */
  const routes = (): [string, Method, (id: string) => string, Record<string, unknown>?][] => [
    ['member', 'PATCH', (id) => `/merchant/users/${id}`, { role: 'viewer' }],
    ['member', 'DELETE', (id) => `/merchant/users/${id}`],
    ['owner', 'PATCH', (id) => `/merchant/users/${id}`, { role: 'viewer' }],
    ['owner', 'DELETE', (id) => `/merchant/users/${id}`],
    ['store', 'PATCH', (id) => `/merchant/stores/${id}`, { name: 'Mine now' }],
    ['key', 'DELETE', (id) => `/merchant/api-keys/${id}`],
    ['delivery', 'GET', (id) => `/merchant/webhooks/deliveries/${id}`],
    ['delivery', 'POST', (id) => `/merchant/webhooks/deliveries/${id}/redeliver`],
    ['delivery', 'POST', (id) => `/merchant/webhooks/deliveries/${id}/resolve`, { note: 'mine' }],
    ['address', 'PATCH', (id) => `/merchant/payout-addresses/${id}`, { label: 'mine' }],
    ['address', 'PATCH', (id) => `/merchant/payout-addresses/${id}`, { address: ADDR.TRON_2, password: a.password }],
    ['address', 'DELETE', (id) => `/merchant/payout-addresses/${id}`],
  ];

  it('answers 404 `not found` to another merchant\'s id, an unknown one and a malformed one, on every route', async () => {
    // the shape of a real id of that subject, naming none
    const unknown = (id: string) => id.replace(/[^_]{4}$/, (end) => (end === '0000' ? '1111' : '0000'));
    const got: string[] = [];
    for (const [subject, method, url, body] of routes()) {
      for (const id of [theirs[subject], unknown(theirs[subject]), 'nope', '%20']) {
        const res = await ask(a, method, url(id), body);
        got.push(`${method} ${url(id)} ${res.statusCode} ${res.body}`);
      }
    }
    expect(got).toEqual(got.map((line) => line.replace(/ \d{3} .*$/, ' 404 {"error":"not found"}')));
  });

  it('leaves the other merchant\'s member, store, key, delivery and address as they were', async () => {
    const team = (await ask(b, 'GET', '/merchant/users')).json().users as { id: string; role: string }[];
    expect(team.map((u) => [u.id, u.role]).sort()).toEqual([[theirs.owner, 'owner'], [theirs.member, 'developer']].sort());
    expect((await ask(b, 'GET', '/merchant/stores')).json().stores.map((s: { name: string }) => s.name)).toEqual(['Their shop']);
    expect((await t.app.inject({ method: 'GET', url: '/v1/webhook', headers: { authorization: `Bearer ${b.testKey}` } })).statusCode).toBe(200);
    expect((await ask(b, 'GET', `/merchant/webhooks/deliveries/${theirs.delivery}?mode=test`)).json().delivery).toMatchObject({ status: 'failed', attempts: 7 });
    const [address] = (await ask(b, 'GET', '/merchant/payout-addresses')).json().addresses as { id: string; address: string; label: string | null }[];
    expect([address.id, address.address, address.label]).toEqual([theirs.address, ADDR.TRON, '']);
  });
});
