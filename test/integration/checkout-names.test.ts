// Who the payer pays: `merchant_name`, and `store_name` for a storefront key's payment, in
// GET /checkout/{token}, the coin choice's answer and the checkout socket's payment:update; kept in
// process until they change (no lookup per read): a rename made here shows on the next read, one made
// by another process as soon as its notice comes; without the change feed, within NAMES_CACHE_MS.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { describeEachDb } from '../harness/databases.ts';
import { signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { createPayment, fromIp } from '../harness/payments.ts';
import { ask, closeSockets, connect, next, startSocketApp, until, type SocketApp } from './realtime-support.ts';
import { foundOrNull, type PaymentJson } from '../../src/realtime/index.ts';
import { PayerNameCache, NAMES_CACHE_MS, merchants, stores } from '../../src/accounts/index.ts';

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

  /** The payments' change feed listens (started by the first checkout read). */
  const feedListening = async () => {
    await checkout('no-such-token');
    await until(() => t.services.payments.changes.active);
  };
  /** A rename made outside this process, as another process of the gateway would (PGlite has no other). */
  const renameElsewhere = async (table: 'merchants' | 'stores', id: string, name: string) => {
    if (h.kind === 'pglite') {
      const target = table === 'merchants' ? merchants : stores;
      await h.db().orm.update(target).set({ name }).where(eq(target.id, id));
      return;
    }
    const c = new pg.Client({ connectionString: h.url()! });
    await c.connect();
    try { await c.query(`update ${table} set name = $1 where id = $2`, [name, id]); } finally { await c.end(); }
  };

  it('keeps the names while they are unchanged: no read, however long', async () => {
    await feedListening();
    let now = 0;
    const cache = new PayerNameCache(t.platform.db, { now: () => now });
    cache.follow(t.services.payments.changes);
    expect(await cache.names(owner.merchant.id, storeId)).toEqual({ merchant_name: 'Café Olé', store_name: 'Olé Books' });
    for (let i = 1; i <= 30; i++) {
      now = i * NAMES_CACHE_MS;
      expect(cache.names(owner.merchant.id, storeId)).toEqual({ merchant_name: 'Café Olé', store_name: 'Olé Books' });
    }
    expect(cache.lookups).toBe(1);
  });

  it('a store renamed through this process shows on the very next read, however it was renamed', async () => {
    await feedListening();
    const p = await createPayment(t.app, storeKey);
    expect((await checkout(p.checkout_token)).store_name).toBe('Olé Books');
    // A transaction of this process with no event: only the database's report can tell.
    await t.platform.db.transaction(async (tx) => { await tx.update(stores).set({ name: 'Olé Libros' }).where(eq(stores.id, storeId)); });
    expect((await checkout(p.checkout_token)).store_name).toBe('Olé Libros');
    const res = await t.app.inject({ method: 'PATCH', url: `/merchant/stores/${storeId}`, headers: tokenHeader(owner.accessToken), payload: { name: 'Olé Books' } });
    expect(res.statusCode).toBe(200);
    expect((await checkout(p.checkout_token)).store_name).toBe('Olé Books');
  });

  it('a merchant or store renamed by another process shows as soon as its notice comes', async () => {
    await feedListening();
    const other = await signupAccount(t.app, { merchant_name: 'Elsewhere Ltd' });
    const [store] = await t.platform.db.orm.insert(stores).values({ id: `sto_e${Date.now()}`, merchantId: other.merchant.id, name: 'Before', createdAt: new Date(), updatedAt: new Date() }).returning();
    // A clock that never moves: nothing but the notice can bring the new names.
    const cache = new PayerNameCache(t.platform.db, { now: () => 0 });
    cache.follow(t.services.payments.changes);
    expect(await cache.names(other.merchant.id, store.id)).toEqual({ merchant_name: 'Elsewhere Ltd', store_name: 'Before' });
    await renameElsewhere('stores', store.id, 'After');
    await renameElsewhere('merchants', other.merchant.id, 'Renamed Ltd');
    const seen = async () => JSON.stringify(await cache.names(other.merchant.id, store.id));
    const wanted = JSON.stringify({ merchant_name: 'Renamed Ltd', store_name: 'After' });
    for (let i = 0; i < 100 && await seen() !== wanted; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await seen()).toBe(wanted);
  });

  it('a rename made while the change feed had lost its connection is never served once it listens again', async () => {
    if (h.kind === 'pglite') return; // PGlite's listener is in process and cannot be lost.
    await feedListening();
    const other = await signupAccount(t.app, { merchant_name: 'Lost Notice Ltd' });
    // A clock that never moves: a kept name ends only by being forgotten.
    const cache = new PayerNameCache(t.platform.db, { now: () => 0 });
    cache.follow(t.services.payments.changes);
    expect(await cache.names(other.merchant.id, null)).toEqual({ merchant_name: 'Lost Notice Ltd' });
    const admin = new pg.Client({ connectionString: h.url()! });
    await admin.connect();
    try {
      const { rows } = await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and query like 'listen pay%'`);
      expect(rows.length).toBeGreaterThan(0);
      await until(() => !t.services.payments.changes.active);
      await admin.query('update merchants set name = $1 where id = $2', ['Found Again Ltd', other.merchant.id]);
    } finally { await admin.end(); }
    await feedListening();
    const seen = async () => JSON.stringify(await cache.names(other.merchant.id, null));
    for (let i = 0; i < 20 && await seen() !== JSON.stringify({ merchant_name: 'Found Again Ltd' }); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await cache.names(other.merchant.id, null)).toEqual({ merchant_name: 'Found Again Ltd' });
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

  it('without the change feed, a rename made by another process is served for at most NAMES_CACHE_MS', async () => {
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
