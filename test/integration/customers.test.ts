// Customers (CONTRACT.md "Customers"): made by hand or from payments' customer_email (from the
// outbox, once per merchant, mode and email in any case), with counts, search and recent payments.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { and, asc, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { addMember, randomIp, signupAccount, tokenHeader, uid, type Account, type Member } from '../harness/accounts.ts';
import { confirmPayment, createPayment, handGroupEventsAgain, type Json } from '../harness/payments.ts';
import { ANY_ROLE, DASHBOARD_ROUTES, SIMULATORS } from '../../src/accounts/index.ts';
import { auditEntries } from '../../src/accounts/schema.ts';
import { events } from '../../src/events/index.ts';
import { payments } from '../../src/payments/schema.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { committedMeanwhile } from '../harness/lock-waits.ts';

describeEachDb('customers', (h) => {
  let t: TestApp;
  let owner: Account;
  let finance: Member;
  let viewer: Member;
  // Moved by hand: the API key's 20 a second would refuse a burst of payments on a real clock.
  const clock = new ManualClock('2026-03-02T09:00:00Z');
  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock, env: { SIMULATION_STEP_MS: '0' } });
    owner = await signupAccount(t.app);
    finance = await addMember(t.app, owner.accessToken, 'finance');
    viewer = await addMember(t.app, owner.accessToken, 'viewer');
  });
  afterAll(async () => { await t.close(); });

  const inject = (opts: InjectOptions) => t.app.inject({ remoteAddress: randomIp(), ...opts });
  const create = (token: string, payload: object, mode = '?mode=test') => inject({ method: 'POST', url: `/merchant/customers${mode}`, headers: tokenHeader(token), payload });
  const list = (token: string, qs = '') => inject({ method: 'GET', url: `/merchant/customers${qs}`, headers: tokenHeader(token) });
  const get = (token: string, id: string) => inject({ method: 'GET', url: `/merchant/customers/${id}`, headers: tokenHeader(token) });
  const customerEvents = async (id: string) => (await h.db().orm.select().from(events).where(eq(events.type, 'customer:update')).orderBy(asc(events.seq)))
    .filter((e) => (e.data as Json).id === id).map((e) => e.data as Json);
  const byEmail = async (acct: Account, email: string, mode = '?mode=test'): Promise<Json[]> =>
    (await list(acct.accessToken, `${mode}${mode ? '&' : '?'}q=${encodeURIComponent(email)}`)).json().customers;

  it('declares the roles: anyone reads; owners, developers and finance make and change customers', () => {
    expect(DASHBOARD_ROUTES.get('GET /merchant/customers')?.roles).toEqual(ANY_ROLE);
    expect(DASHBOARD_ROUTES.get('GET /merchant/customers/:id')?.roles).toEqual(ANY_ROLE);
    expect(DASHBOARD_ROUTES.get('POST /merchant/customers')?.roles).toEqual(SIMULATORS);
    expect(DASHBOARD_ROUTES.get('PATCH /merchant/customers/:id')?.roles).toEqual(SIMULATORS);
  });

  it('makes a customer by hand: 201 {customer}, audited, customer:update raised; 409 for the same email in any case', async () => {
    const res = await create(finance.accessToken, { email: ' Ana@Example.COM ', name: 'Ana', metadata: { crm: 7 } });
    expect(res.statusCode).toBe(201);
    const c = res.json().customer;
    expect(c).toEqual({
      id: expect.stringMatching(/^cus_/), merchant_id: owner.merchant.id, livemode: false, email: 'ana@example.com', name: 'Ana', metadata: { crm: 7 },
      payments: 0, volume_usd: '0.00', created_at: expect.any(String), updated_at: c.created_at,
    });
    const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, c.id), eq(auditEntries.action, 'customer.created')));
    expect(audit.actor).toMatchObject({ kind: 'merchant', id: finance.id });
    expect(await customerEvents(c.id)).toEqual([c]);
    const again = await create(owner.accessToken, { email: 'ANA@example.com' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'customer already exists' });
    // Another mode is another customer.
    expect((await create(owner.accessToken, { email: 'ana@example.com' }, '')).json().customer.livemode).toBe(true);
  });

  it.each([
    [{}, 'email is required'], [{ email: '' }, 'email is required'], [{ email: 'nope' }, 'invalid email address'], [{ email: 5 }, 'invalid email address'],
    [{ email: 'a\u0000@b.co' }, 'email must not contain NUL characters'],
    [{ email: 'x@y.co', name: 'n'.repeat(201) }, 'name must be a string of at most 200 characters'],
    [{ email: 'x@y.co', name: 3 }, 'name must be a string of at most 200 characters'],
    [{ email: 'x@y.co', name: 'a\u0000' }, 'name must not contain NUL characters'],
    [{ email: 'x@y.co', metadata: [1] }, 'metadata must be an object'],
    [{ email: 'x@y.co', metadata: 'x' }, 'metadata must be an object'],
    [{ email: 'x@y.co', metadata: { a: 'x'.repeat(9000) } }, 'metadata must be at most 8192 bytes of JSON'],
    [{ email: 'x@y.co', metadata: { a: 'b\u0000' } }, 'metadata must not contain NUL characters'],
  ])('refuses %j: 400 %s', async (payload, error) => {
    const res = await create(owner.accessToken, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error });
  });

  it('refuses viewers (403), and a request without a token (401)', async () => {
    expect((await create(viewer.accessToken, { email: 'v@x.co' })).json()).toEqual({ error: 'insufficient permissions' });
    const patch = await inject({ method: 'PATCH', url: '/merchant/customers/cus_x', headers: tokenHeader(viewer.accessToken), payload: { name: 'x' } });
    expect(patch.statusCode).toBe(403);
    expect((await inject({ method: 'GET', url: '/merchant/customers' })).statusCode).toBe(401);
  });

  it('first_payment_at and last_payment_at are the earliest and latest payment, within one batch and across batches', async () => {
    const acct = await signupAccount(t.app);
    const email = `times-${uid()}@shop.example`;
    const p1 = await createPayment(t.app, acct.testKey, { customer_email: email, amount_usd: '10' });
    clock.advance(60_000);
    const p2 = await createPayment(t.app, acct.testKey, { customer_email: email, amount_usd: '11' });
    clock.advance(60_000);
    const p3 = await createPayment(t.app, acct.testKey, { customer_email: email, amount_usd: '12' });
    expect(new Set([p1.created_at, p2.created_at, p3.created_at]).size).toBe(3);
    // One batch of three: the earliest and the latest of them.
    await t.platform.outbox.drainNow();
    const [c] = await byEmail(acct, email);
    expect(c).toMatchObject({ payments: 3, first_payment_at: p1.created_at, last_payment_at: p3.created_at });
    // A later batch moves only the latest.
    clock.advance(60_000);
    const p4 = await createPayment(t.app, acct.testKey, { customer_email: email, amount_usd: '13' });
    await t.platform.outbox.drainNow();
    const [after] = await byEmail(acct, email);
    expect(after).toMatchObject({ payments: 4, first_payment_at: p1.created_at, last_payment_at: p4.created_at });
    // A batch that only confirms an older payment moves neither.
    await confirmPayment(t, acct.testKey, p2.id);
    const [confirmed] = await byEmail(acct, email);
    expect(confirmed).toMatchObject({ payments: 4, volume_usd: '11.00', first_payment_at: p1.created_at, last_payment_at: p4.created_at });
  });

  it('counts a payment in no status but confirmed into payments only, never into volume_usd', async () => {
    const acct = await signupAccount(t.app);
    const email = `unpaid-${uid()}@shop.example`;
    const statuses = ['partially_paid', 'detecting', 'underpaid', 'expired', 'failed'];
    for (const status of statuses) {
      clock.advance(1000);
      const p = await createPayment(t.app, acct.testKey, { customer_email: email, amount_usd: '10' });
      // The payment moved on before the outbox counted it (as when the dispatch lags).
      await h.db().orm.update(payments).set({ status }).where(eq(payments.id, p.id));
    }
    await t.platform.outbox.drainNow();
    const [c] = await byEmail(acct, email);
    expect(c).toMatchObject({ payments: statuses.length, volume_usd: '0.00' });
  });

  it('makes one customer per merchant, mode and email from payments, counted from the outbox', async () => {
    const acct = await signupAccount(t.app);
    const p1 = await createPayment(t.app, acct.testKey, { customer_email: 'Payer@Shop.example', amount_usd: '10' });
    const p2 = await createPayment(t.app, acct.testKey, { customer_email: 'payer@shop.example', amount_usd: '15.25' });
    await createPayment(t.app, acct.testKey, { amount_usd: '5' });
    expect(await byEmail(acct, 'payer@')).toEqual([]);
    await t.platform.outbox.drainNow();
    const [c] = await byEmail(acct, 'payer@');
    expect(c).toMatchObject({ email: 'payer@shop.example', livemode: false, payments: 2, volume_usd: '0.00', first_payment_at: p1.created_at, last_payment_at: p2.created_at });
    expect((await list(acct.accessToken, '?mode=test')).json().total).toBe(1);
    await confirmPayment(t, acct.testKey, p2.id);
    const [after] = await byEmail(acct, 'payer@');
    expect(after).toMatchObject({ payments: 2, volume_usd: '15.25' });
    expect((await customerEvents(c.id)).at(-1)).toEqual(after);
    // Handed over again (a dispatch that crashed before its commit): nothing counts twice.
    expect(await handGroupEventsAgain(t, [p1.id, p2.id])).toBeGreaterThanOrEqual(3);
    expect((await byEmail(acct, 'payer@'))[0]).toEqual(after);
  });

  it('joins a payment to the customer made by hand with its email', async () => {
    const acct = await signupAccount(t.app);
    const made = (await create(acct.accessToken, { email: 'known@shop.example', name: 'Known' })).json().customer;
    const p = await createPayment(t.app, acct.testKey, { customer_email: 'KNOWN@shop.example' });
    await t.platform.outbox.drainNow();
    const got = (await get(acct.accessToken, made.id)).json().customer;
    expect(got).toMatchObject({ id: made.id, name: 'Known', payments: 1, first_payment_at: p.created_at, last_payment_at: p.created_at });
    expect(got.recent_payments.map((x: Json) => x.id)).toEqual([p.id]);
    expect(got.recent_payments[0]).toMatchObject({ customer_email: 'KNOWN@shop.example', merchant_id: acct.merchant.id });
  });

  it('answers GET with up to 20 recent payments, newest first, for a customer of either mode', async () => {
    const acct = await signupAccount(t.app);
    const ids: string[] = [];
    for (let i = 0; i < 21; i++, clock.advance(100)) ids.push((await createPayment(t.app, acct.testKey, { customer_email: 'many@shop.example', order_id: `o-${i}-${uid()}` })).id);
    await t.platform.outbox.drainNow();
    const [c] = await byEmail(acct, 'many@');
    const got = (await get(acct.accessToken, c.id)).json().customer;
    expect(got.payments).toBe(21);
    expect(got.recent_payments.map((p: Json) => p.id)).toEqual(ids.slice(1).reverse());
    const manual = (await create(acct.accessToken, { email: 'live@shop.example' }, '')).json().customer;
    expect((await get(acct.accessToken, manual.id)).json().customer).toMatchObject({ livemode: true, recent_payments: [] });
    for (const id of ['cus_nope', c.id.replace('cus_', 'cus_x'), 'bad%20id']) {
      const res = await get(owner.accessToken, id);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not found' });
    }
    expect((await get(owner.accessToken, c.id)).statusCode).toBe(404);
  });

  it('searches email or name with q (any case, taken literally), and applies the list limits', async () => {
    const acct = await signupAccount(t.app);
    await create(acct.accessToken, { email: 'zoe@alpha.example', name: 'Zoë Smith' });
    clock.advance(1000);
    await create(acct.accessToken, { email: 'max@beta.example', name: '100% Max' });
    clock.advance(1000);
    await create(acct.accessToken, { email: 'sam_x@gamma.example' });
    const emails = async (q: string) => (await byEmail(acct, q)).map((c) => c.email);
    expect(await emails('ALPHA')).toEqual(['zoe@alpha.example']);
    expect(await emails('smith')).toEqual(['zoe@alpha.example']);
    expect(await emails('100%')).toEqual(['max@beta.example']);
    expect(await emails('_x@')).toEqual(['sam_x@gamma.example']);
    expect(await emails('nobody')).toEqual([]);
    expect((await list(acct.accessToken, '?mode=test')).json().customers.map((c: Json) => c.email))
      .toEqual(['sam_x@gamma.example', 'max@beta.example', 'zoe@alpha.example']);
    expect((await list(acct.accessToken, '?mode=test&limit=0&offset=-1')).json()).toMatchObject({ limit: 50, offset: 0, total: 3 });
    expect((await list(acct.accessToken, '?mode=test&limit=1&offset=1')).json().customers.map((c: Json) => c.email)).toEqual(['max@beta.example']);
    expect((await list(acct.accessToken, '')).json()).toMatchObject({ customers: [], total: 0 });
    for (const [qs, error] of [[`?q=${'q'.repeat(201)}`, 'q must be a string of at most 200 characters'], ['?q=a&q=b', 'q must be a string of at most 200 characters'], ['?q=a%00', 'q must not contain NUL characters']]) {
      const res = await list(acct.accessToken, qs);
      expect(res.statusCode, qs).toBe(400);
      expect(res.json()).toEqual({ error });
    }
  });

  it('changes name and metadata (null removes them); 400 for nothing to change; customer:update raised', async () => {
    const c = (await create(owner.accessToken, { email: `p-${uid()}@x.example`, name: 'Old', metadata: { a: 1 } })).json().customer;
    const patch = (payload: object) => inject({ method: 'PATCH', url: `/merchant/customers/${c.id}`, headers: tokenHeader(finance.accessToken), payload });
    const res = await patch({ name: 'New' });
    expect(res.statusCode).toBe(200);
    expect(res.json().customer).toMatchObject({ name: 'New', metadata: { a: 1 } });
    const cleared = (await patch({ name: null, metadata: null })).json().customer;
    expect(cleared).not.toHaveProperty('name');
    expect(cleared).not.toHaveProperty('metadata');
    expect((await customerEvents(c.id)).at(-1)).toEqual(cleared);
    for (const [payload, error] of [[{}, 'nothing to update'], [{ email: 'other@x.co' }, 'nothing to update'], [{ metadata: 3 }, 'metadata must be an object']] as const) {
      const bad = await patch(payload);
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toEqual({ error });
    }
    const missing = await inject({ method: 'PATCH', url: '/merchant/customers/cus_nope', headers: tokenHeader(owner.accessToken), payload: { name: 'x' } });
    expect(missing.statusCode).toBe(404);
  });

  // Another change committed while this one waits (a second dashboard tab): the audit's `before` is
  // what this change replaced, so the trail reads Old -> Other -> New, never Old -> New twice.
  it.skipIf(h.kind !== 'postgres')('audits the customer as it was when the change was made, with a change committed meanwhile', async () => {
    const c = (await create(owner.accessToken, { email: `r-${uid()}@x.example`, name: 'Old' })).json().customer;
    const res = await committedMeanwhile(h.db(), h.url()!, `update customers set name = 'Other' where id = $1`, [c.id],
      () => inject({ method: 'PATCH', url: `/merchant/customers/${c.id}`, headers: tokenHeader(finance.accessToken), payload: { name: 'New' } }));
    expect(res.statusCode).toBe(200);
    const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, c.id), eq(auditEntries.action, 'customer.updated')));
    expect([(audit.before as Json).name, (audit.after as Json).name]).toEqual(['Other', 'New']);
  });

});
