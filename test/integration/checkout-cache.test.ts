// GET /checkout/{token} answers an unchanged payment's view from memory (src/payments/checkout-cache.ts):
// byte for byte the view it would build, forgotten the moment the payment changes, here (the
// database's report to the connection that changed it) or anywhere else (the database's notice),
// only for the payment changed, and never kept for a payment whose view follows the market.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { createPayment, fromIp } from '../harness/payments.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { ChangeFeed } from '../../src/platform/db/change-feed.ts';
import { CheckoutCache, PAYMENT_CHANGED_CHANNEL } from '../../src/payments/checkout-cache.ts';
import { deposits, payments } from '../../src/payments/schema.ts';
import { stores } from '../../src/accounts/index.ts';

describeEachDb('checkout views kept while unchanged', (h) => {
  let t: TestApp;
  let acct: Account;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock });
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });

  const cache = () => t.services.payments.checkoutCache;
  const get = (token: string) => t.app.inject(fromIp({ method: 'GET', url: `/checkout/${token}` }));
  /** Reads until the view is kept (the first read starts listening). */
  const readUntilKept = async (token: string) => {
    for (let i = 0; i < 100 && !cache().get(token); i++) {
      await get(token);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(cache().get(token)).toBeDefined();
  };
  /** A change made outside this process's transactions, as another process of the gateway would. */
  const changeElsewhere = async (id: string, status: string) => {
    if (h.kind === 'pglite') {
      await h.db().orm.update(payments).set({ status }).where(eq(payments.id, id));
      return;
    }
    const c = new pg.Client({ connectionString: h.url()! });
    await c.connect();
    try { await c.query('update payments set status = $1 where id = $2', [status, id]); } finally { await c.end(); }
  };

  it('answers a kept view byte for byte as the view is built, with its names and content type', async () => {
    const p = await createPayment(t.app, acct.testKey);
    await readUntilKept(p.checkout_token);
    const res = await get(p.checkout_token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toBe(JSON.stringify(await t.services.payments.checkoutView(p.checkout_token)));
    expect(res.json()).toMatchObject({ id: p.id, status: 'pending', merchant_name: expect.any(String) });
    expect(res.json()).not.toHaveProperty('checkout_token');
  });

  it('forgets a view when another process changes the payment (the database\'s notice)', async () => {
    const p = await createPayment(t.app, acct.testKey);
    await readUntilKept(p.checkout_token);
    await changeElsewhere(p.id, 'failed');
    let status = '';
    for (let i = 0; i < 100 && status !== 'failed'; i++) {
      status = (await get(p.checkout_token)).json().status;
      if (status !== 'failed') await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe('failed');
    expect((await get(p.checkout_token)).body).toBe(JSON.stringify(await t.services.payments.checkoutView(p.checkout_token)));
  });

  it('shows the expiry the deadline timer writes at once, with no wait for a notice', async () => {
    const p = await createPayment(t.app, acct.testKey);
    await readUntilKept(p.checkout_token);
    clock.advance(16 * 60 * 1000);
    await t.services.payments.runDue(clock.now());
    expect((await get(p.checkout_token)).json().status).toBe('expired');
  });

  it('a commit that changes another payment, or no payment, keeps this one\'s view', async () => {
    const kept = await createPayment(t.app, acct.testKey);
    const other = await createPayment(t.app, acct.testKey);
    await readUntilKept(kept.checkout_token);
    await readUntilKept(other.checkout_token);
    await t.platform.db.transaction(async (tx) => { await tx.update(payments).set({ status: 'failed' }).where(eq(payments.id, other.id)); });
    expect(cache().get(other.checkout_token)).toBeUndefined();
    await t.platform.db.transaction(async (tx) => { await tx.update(stores).set({ name: 'Unrelated' }).where(eq(stores.id, 'no-such-store')); });
    expect(cache().get(kept.checkout_token)).toBeDefined();
    expect((await get(other.checkout_token)).json().status).toBe('failed');
  });

  it('answers a change made here by any writer on the very next read: a transaction, a raw statement, a lone update', async () => {
    const db = t.platform.db;
    const writers: ((id: string) => Promise<unknown>)[] = [
      (id) => db.transaction(async (tx) => { await tx.update(payments).set({ status: 'failed' }).where(eq(payments.id, id)); }),
      (id) => db.transaction(async (tx) => { await tx.execute(sql`update payments set status = 'failed' where id = ${id}`); }, { silent: true }),
      (id) => db.orm.update(payments).set({ status: 'failed' }).where(eq(payments.id, id)),
    ];
    for (const write of writers) {
      const p = await createPayment(t.app, acct.testKey);
      await readUntilKept(p.checkout_token);
      await write(p.id);
      expect((await get(p.checkout_token)).json().status).toBe('failed');
    }
  });

  it('never keeps a payment with no coin yet (its token_options follow the market)', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: undefined });
    for (let i = 0; i < 5; i++) expect((await get(p.checkout_token)).json().token_options.length).toBeGreaterThan(0);
    expect(cache().get(p.checkout_token)).toBeUndefined();
  });

  it('a deposit added or changed, here or elsewhere, with no change to its payment row, shows on the next read', async () => {
    const p = await createPayment(t.app, acct.testKey);
    await readUntilKept(p.checkout_token);
    const id = `dep_${p.id}`;
    const now = clock.now();
    await t.platform.db.transaction(async (tx) => {
      await tx.insert(deposits).values({
        id, paymentId: p.id, txId: `0x${'ab'.repeat(32)}`, token: 'ETH', amount: 1n, usdValue: '1', counted: false,
        confirmations: 0, confirmationsRequired: 12, status: 'pending', simulated: true, late: false, seenAt: now,
      });
    });
    const added = (await get(p.checkout_token)).json();
    expect(added.status).toBe('pending');
    expect(added.deposits).toEqual([expect.objectContaining({ confirmations: 0 })]);
    await readUntilKept(p.checkout_token);
    // Only the deposit row moves (the payment row is untouched), written by another process.
    if (h.kind === 'pglite') await h.db().orm.update(deposits).set({ confirmations: 5 }).where(eq(deposits.id, id));
    else {
      const c = new pg.Client({ connectionString: h.url()! });
      await c.connect();
      try { await c.query('update deposits set confirmations = 5 where id = $1', [id]); } finally { await c.end(); }
    }
    let seen = -1;
    for (let i = 0; i < 100 && seen !== 5; i++) {
      seen = (await get(p.checkout_token)).json().deposits[0].confirmations;
      if (seen !== 5) await new Promise((r) => setTimeout(r, 20));
    }
    expect(seen).toBe(5);
  });

  it('does not keep a view read while the payment changed (read before the change, put after it)', async () => {
    const p = await createPayment(t.app, acct.testKey);
    await readUntilKept(p.checkout_token);
    const before = cache().get(p.checkout_token)!;
    await t.platform.db.transaction(async (tx) => { await tx.update(payments).set({ status: 'failed' }).where(eq(payments.id, p.id)); });
    expect(cache().get(p.checkout_token)).toBeUndefined();
    // A reader that marked before the change and read the old row now offers its stale view.
    const raced = cache().mark() - 1;
    cache().put(p.checkout_token, before, raced);
    expect(cache().get(p.checkout_token)).toBeUndefined();
    expect((await get(p.checkout_token)).json().status).toBe('failed');
    // A change to another payment while reading also makes the read unkept (the generation moved).
    const other = await createPayment(t.app, acct.testKey);
    cache().forget(p.id);
    const mark = cache().mark();
    await t.platform.db.transaction(async (tx) => { await tx.update(payments).set({ status: 'failed' }).where(eq(payments.id, other.id)); });
    cache().put(p.checkout_token, { ...before, json: '{}' }, mark);
    expect(cache().get(p.checkout_token)).toBeUndefined();
  });

  it('forgets every view when the feed loses its connection, so a change missed meanwhile is never answered stale', async () => {
    if (h.kind === 'pglite') return; // PGlite's listener is in process and cannot be lost.
    const p = await createPayment(t.app, acct.testKey);
    await readUntilKept(p.checkout_token);
    const admin = new pg.Client({ connectionString: h.url()! });
    await admin.connect();
    try {
      const { rows } = await admin.query(`select pg_terminate_backend(pid) as gone from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and query like 'listen pay%'`);
      expect(rows.length).toBeGreaterThan(0);
      // The change lands while nobody listens: no notice of it will ever arrive.
      for (let i = 0; i < 100 && cache().active; i++) await new Promise((r) => setTimeout(r, 10));
      expect(cache().active).toBe(false);
      await admin.query(`update payments set status = 'failed' where id = $1`, [p.id]);
    } finally { await admin.end(); }
    expect(cache().get(p.checkout_token)).toBeUndefined();
    // Listening again (a second later), the view is read afresh.
    for (let i = 0; i < 300 && !cache().active; i++) { await get(p.checkout_token); await new Promise((r) => setTimeout(r, 20)); }
    expect(cache().active).toBe(true);
    expect((await get(p.checkout_token)).json().status).toBe('failed');
    await readUntilKept(p.checkout_token);
    expect((await get(p.checkout_token)).json().status).toBe('failed');
  });

  it('forgets a view on the database\'s report to the writer alone, for a payment or a deposit change (no notice needed)', async () => {
    // PGlite drops notices (its own NOTIFY comes with the COMMIT instead): reports are PostgreSQL's.
    if (h.kind === 'pglite') return;
    /** A feed that hears only the reports of this process's writes, never a NOTIFY. */
    class ReportsOnly extends ChangeFeed {
      override get active(): boolean { return true; }
      override start(): void {}
    }
    const feed = new ReportsOnly(t.platform.db, t.platform.log, [PAYMENT_CHANGED_CHANNEL]);
    const own = new CheckoutCache(feed);
    try {
      const p = await createPayment(t.app, acct.testKey);
      const keep = () => { own.put(p.checkout_token, { paymentId: p.id, merchantId: acct.merchant.id, storeId: null, json: '{}' }, own.mark()); expect(own.get(p.checkout_token)).toBeDefined(); };
      keep();
      await t.platform.db.transaction(async (tx) => { await tx.update(payments).set({ status: 'failed' }).where(eq(payments.id, p.id)); });
      expect(own.get(p.checkout_token)).toBeUndefined();
      keep();
      const id = `dep_r_${p.id}`;
      await t.platform.db.transaction(async (tx) => {
        await tx.insert(deposits).values({
          id, paymentId: p.id, txId: `0x${'cd'.repeat(32)}`, token: 'ETH', amount: 1n, usdValue: '1', counted: false,
          confirmations: 0, confirmationsRequired: 12, status: 'pending', simulated: true, late: false, seenAt: clock.now(),
        });
      });
      expect(own.get(p.checkout_token)).toBeUndefined();
      keep();
      await t.platform.db.orm.update(deposits).set({ confirmations: 3 }).where(eq(deposits.id, id));
      expect(own.get(p.checkout_token)).toBeUndefined();
    } finally {
      own.close();
      await feed.close();
    }
  });

  it('keeps nothing for an unknown token', async () => {
    const res = await get('no-such-token');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'payment not found' });
  });
});
