// Who the payer pays: `merchant_name`, and `store_name` for a storefront key's payment, in
// GET /checkout/{token}, the coin choice's answer and the checkout socket's payment:update; kept in
// process (no lookup per read), renamed at once through the outbox and within NAMES_CACHE_MS when
// another process renamed.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { createPayment, fromIp } from '../harness/payments.ts';
import { ask, closeSockets, connect, next, startSocketApp, until, type SocketApp } from './realtime-support.ts';
import { foundOrNull, type PaymentJson } from '../../src/realtime/index.ts';
import { PayerNameCache, NAMES_CACHE_MS, stores } from '../../src/accounts/index.ts';

interface Update { type: string; payment: PaymentJson }

describeEachDb('merchant and store names on the checkout', (h) => {
  let t: SocketApp;
  let owner: Account;
  let storeId: string;
  let storeKey: string;

  beforeAll(async () => {
    t = await startSocketApp(h.db());
    t.services.realtime.use({ checkout: { payerViewByToken: (tok) => foundOrNull(t.services.payments.checkoutView(tok)) } });
    owner = await signupAccount(t.app, { merchant_name: 'Café Olé' });
    const store = await t.app.inject({ method: 'POST', url: '/merchant/stores', headers: tokenHeader(owner.accessToken), payload: { name: 'Olé Books' } });
    storeId = store.json().store.id;
    const key = await t.app.inject({ method: 'POST', url: '/merchant/api-keys?mode=test', headers: tokenHeader(owner.accessToken), payload: { store_id: storeId } });
    storeKey = key.json().secret;
  });
  afterAll(async () => { await t.close(); });
  afterEach(() => closeSockets());

  const checkout = async (token: string) => (await t.app.inject(fromIp({ method: 'GET', url: `/checkout/${token}` }))).json();

  it('GET /checkout/{token} names the merchant; no store_name without a store', async () => {
    const p = await createPayment(t.app, owner.testKey);
    const view = await checkout(p.checkout_token);
    expect(view.merchant_name).toBe('Café Olé');
    expect(view).not.toHaveProperty('store_name');
    // Private to the merchant's views: the payment API answer has neither.
    expect(p).not.toHaveProperty('merchant_name');
  });

  it('a storefront key\'s payment names its store too, in GET and in the coin choice\'s answer', async () => {
    const p = await createPayment(t.app, storeKey, { token: undefined });
    expect(await checkout(p.checkout_token)).toMatchObject({ merchant_name: 'Café Olé', store_name: 'Olé Books', store_id: storeId });
    const chosen = await t.app.inject(fromIp({ method: 'POST', url: `/checkout/${p.checkout_token}/token`, payload: { token: 'LTC' } }));
    expect(chosen.json()).toMatchObject({ token: 'LTC', merchant_name: 'Café Olé', store_name: 'Olé Books' });
  });

  it('reads the names once, not once per request', async () => {
    const p = await createPayment(t.app, storeKey);
    await checkout(p.checkout_token);
    const before = t.services.accounts.names.lookups;
    const started = performance.now();
    for (let i = 0; i < 30; i++) expect((await checkout(p.checkout_token)).store_name).toBe('Olé Books');
    // At most one background refresh each time the entry nears its end (every 1.5 s of a slow run).
    const refreshes = 1 + Math.floor((performance.now() - started) / 1500);
    expect(t.services.accounts.names.lookups - before).toBeLessThanOrEqual(refreshes);
    expect(refreshes).toBeLessThan(30);
  });

  it('a store renamed through this process shows on the next read (from the outbox event)', async () => {
    const p = await createPayment(t.app, storeKey);
    expect((await checkout(p.checkout_token)).store_name).toBe('Olé Books');
    const res = await t.app.inject({ method: 'PATCH', url: `/merchant/stores/${storeId}`, headers: tokenHeader(owner.accessToken), payload: { name: 'Olé Libros' } });
    expect(res.statusCode).toBe(200);
    const lookups = t.services.accounts.names.lookups;
    // The dispatcher running in the background hands the store:update event over within moments,
    // well before the name read above is 2 seconds old: no read brings the new name, the event does.
    await until(() => t.services.accounts.names.peek(owner.merchant.id, storeId).store_name === 'Olé Libros', 1500);
    expect((await checkout(p.checkout_token)).store_name).toBe('Olé Libros');
    expect(t.services.accounts.names.lookups).toBe(lookups);
  });

  it('payment:update carries the names on the checkout socket', async () => {
    const p = await createPayment(t.app, storeKey, { token: undefined });
    const s = connect(t.url);
    const snapshot = next<Update>(s, 'payment:update');
    const ack = await ask<{ ok: boolean; payment: PaymentJson }>(s, 'subscribe', p.checkout_token);
    expect(ack.payment).toMatchObject({ merchant_name: 'Café Olé' });
    expect((await snapshot).payment).toMatchObject({ merchant_name: 'Café Olé', store_name: expect.any(String) });
    const chosen = next<Update>(s, 'payment:update');
    await t.app.inject(fromIp({ method: 'POST', url: `/checkout/${p.checkout_token}/token`, payload: { token: 'ETH' } }));
    const u = await chosen;
    expect(u.type).toBe('payment.coin_chosen');
    expect(u.payment).toMatchObject({ token: 'ETH', merchant_name: 'Café Olé', store_name: expect.any(String) });
    expect(u.payment).not.toHaveProperty('merchant_id');
  });

  it('a rename made by another process (no event here) is served for at most NAMES_CACHE_MS', async () => {
    let now = 0;
    const cache = new PayerNameCache(t.platform.db, { now: () => now });
    const merchantId = owner.merchant.id;
    const [store] = await t.platform.db.orm.insert(stores).values({ id: `sto_${Date.now()}`, merchantId, name: 'Before', createdAt: new Date(), updatedAt: new Date() }).returning();
    expect(await cache.names(merchantId, store.id)).toEqual({ merchant_name: 'Café Olé', store_name: 'Before' });
    await t.platform.db.orm.update(stores).set({ name: 'After' }).where(eq(stores.id, store.id));
    now = NAMES_CACHE_MS - 600;
    // Still young: served as held, without a read.
    expect(cache.names(merchantId, store.id)).toEqual({ merchant_name: 'Café Olé', store_name: 'Before' });
    expect(cache.lookups).toBe(1);
    now = NAMES_CACHE_MS;
    expect(await cache.names(merchantId, store.id)).toEqual({ merchant_name: 'Café Olé', store_name: 'After' });
    expect(cache.lookups).toBe(2);
  });

  it('peek never waits: empty at first, then what the background read found', async () => {
    const cache = new PayerNameCache(t.platform.db);
    expect(cache.peek(owner.merchant.id, storeId)).toEqual({});
    // Joins the read peek asked for (one query for both).
    await cache.names(owner.merchant.id, storeId);
    expect(cache.peek(owner.merchant.id, storeId)).toEqual({ merchant_name: 'Café Olé', store_name: expect.any(String) });
    expect(cache.lookups).toBe(1);
  });
});
