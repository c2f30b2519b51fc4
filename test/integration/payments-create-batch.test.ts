// Payment creation written in groups (create-statement.ts) and deposit addresses handed out from
// reserved, pre-derived blocks (address-reserve.ts): what arrives together is written together,
// completely, and one bad row or one repeated order never costs the others their payment.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { merchants } from '../../src/accounts/index.ts';
import { auditEntries } from '../../src/accounts/schema.ts';
import { events } from '../../src/events/index.ts';
import { queryRows } from '../../src/platform/db/index.ts';
import { payments } from '../../src/payments/schema.ts';
import { CreatedPaymentWriter } from '../../src/payments/create-statement.ts';
import { REQUEST_GROUP_SEND_AT as SEND_AT, requestGroupsInFlight as maxInFlight } from '../../src/platform/grouped-statements.ts';
import { DepositAddressReserve, STOCK } from '../../src/payments/address-reserve.ts';
import { NumberReserve } from '../../src/payments/repository.ts';
import { DepositAddressDeriver, deriveDepositAddress, seedFromMnemonic } from '../../src/chains/addresses/index.ts';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, uid, type Account } from '../harness/accounts.ts';

describeEachDb('payments created together', (h) => {
  let t: TestApp;
  let acct: Account;
  beforeAll(async () => {
    t = await startTestApp(h.db());
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });

  async function caller() {
    const [merchant] = await h.db().orm.select().from(merchants).where(eq(merchants.id, acct.merchant.id));
    return { merchant, livemode: false, storeId: null, actor: { kind: 'api_key' as const, id: acct.testKeyId } };
  }

  it('writes 60 creations arriving at once with all their rows: audit entry, two events, deadline timer', async () => {
    const c = await caller();
    const made = await Promise.all(Array.from({ length: 60 }, (_, i) =>
      t.services.payments.create(c, { order_id: `g-${uid()}`, amount_usd: '25', ...(i % 4 === 0 ? {} : { token: i % 2 ? 'ETH' : 'BTC' }) })));
    expect(made.every((m) => m.created)).toBe(true);
    const ids = made.map((m) => m.payment.id as string);
    const db = h.db().orm;
    expect(await db.select({ id: payments.id }).from(payments).where(inArray(payments.id, ids))).toHaveLength(60);
    expect(await db.select().from(auditEntries).where(and(inArray(auditEntries.paymentId, ids), eq(auditEntries.action, 'payment.created')))).toHaveLength(60);
    const created = await db.select().from(events).where(and(inArray(events.paymentId, ids), eq(events.type, 'payment.created')));
    expect(created).toHaveLength(60);
    // The event carries exactly what the answer showed, coin options included, without the checkout
    // link (its checkout_token and token_options are for the dashboard's socket; webhook bodies leave them out).
    const byId = new Map(made.map((m) => [m.payment.id, m.payment]));
    for (const e of created) {
      const { checkout_url: _u, ...rest } = byId.get(e.paymentId!)!;
      expect(e.data).toEqual(rest);
    }
    const auditEvents = await db.select().from(events).where(eq(events.type, 'audit:entry'));
    expect(auditEvents.filter((e) => ids.includes((e.data as { payment_id?: string }).payment_id ?? ''))).toHaveLength(60);
    const deadlines = await queryRows<{ key: string }>(db, sql`select key from timers where kind = 'payment.deadline' and key in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`);
    expect(deadlines).toHaveLength(60);
  });

  it('one repeated order among many: each other order gets its payment, the repeats share one', async () => {
    const c = await caller();
    const repeated = `r-${uid()}`;
    const orders = Array.from({ length: 40 }, (_, i) => (i % 5 === 0 ? repeated : `x-${uid()}`));
    const made = await Promise.all(orders.map((order_id) => t.services.payments.create(c, { order_id, amount_usd: '25', token: 'TRX' })));
    const repeats = made.filter((m) => m.payment.order_id === repeated);
    expect(repeats.filter((m) => m.created)).toHaveLength(1);
    expect(new Set(repeats.map((m) => m.payment.id)).size).toBe(1);
    expect(made.filter((m) => m.payment.order_id !== repeated).every((m) => m.created)).toBe(true);
    // The losers' rows were never written: one payment, one audit entry for the repeated order.
    const rows = await h.db().orm.select().from(payments).where(and(eq(payments.merchantId, acct.merchant.id), eq(payments.orderId, repeated)));
    expect(rows).toHaveLength(1);
    expect(await h.db().orm.select().from(auditEntries).where(eq(auditEntries.paymentId, rows[0].id))).toHaveLength(1);
  });

  it('a row the database refuses fails alone: the rows sent with it are written', async () => {
    const c = await caller();
    const sample = await t.services.payments.create(c, { order_id: `s-${uid()}`, amount_usd: '25', token: 'ETH' });
    const [template] = await h.db().orm.select().from(payments).where(eq(payments.id, sample.payment.id as string));
    const writer = new CreatedPaymentWriter(h.db());
    const copy = (n: number, merchantId = template.merchantId) => ({
      ...template, id: `pay_batch_${uid()}_${n}`, orderId: `b-${uid()}-${n}`, checkoutToken: `tok_${uid()}_${n}`, merchantId,
    });
    const rows = [copy(1), copy(2, 'mer_does_not_exist'), copy(3)];
    const results = await Promise.allSettled(rows.map((payment) => writer.write({ payment, actor: c.actor, eventData: { id: payment.id }, now: new Date() })));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : null))).toEqual([true, null, true]);
    const written = await h.db().orm.select({ id: payments.id }).from(payments).where(inArray(payments.id, rows.map((r) => r.id)));
    expect(written.map((r) => r.id).sort()).toEqual([rows[0].id, rows[2].id].sort());
    expect(await h.db().orm.select().from(events).where(eq(events.paymentId, rows[1].id))).toHaveLength(0);
    // The first statement carried all three; the refusal sent each again alone.
    expect(writer.statements).toBe(4);
  });

  it('only a repeated open order counts as already there: a repeated payment id is an error, not a silent skip', async () => {
    const c = await caller();
    const sample = await t.services.payments.create(c, { order_id: `s-${uid()}`, amount_usd: '25', token: 'ETH' });
    const [template] = await h.db().orm.select().from(payments).where(eq(payments.id, sample.payment.id as string));
    const writer = new CreatedPaymentWriter(h.db());
    const sameId = { ...template, orderId: `other-${uid()}`, checkoutToken: `tok_${uid()}` };
    await expect(writer.write({ payment: sameId, actor: c.actor, eventData: {}, now: new Date() })).rejects.toThrow(/duplicate key/);
    const sameOrder = { ...template, id: `pay_again_${uid()}`, checkoutToken: `tok_${uid()}` };
    expect(await writer.write({ payment: sameOrder, actor: c.actor, eventData: {}, now: new Date() })).toBe(false);
  });

  it('writes the creations that arrive in the same tick together: a full group at once, the rest at the end of the tick', async () => {
    const c = await caller();
    const sample = await t.services.payments.create(c, { order_id: `s-${uid()}`, amount_usd: '25', token: 'ETH' });
    const [template] = await h.db().orm.select().from(payments).where(eq(payments.id, sample.payment.id as string));
    const writer = new CreatedPaymentWriter(h.db());
    const rows = Array.from({ length: 2 * SEND_AT + 6 }, (_, n) => ({ ...template, id: `pay_tick_${uid()}_${n}`, orderId: `k-${uid()}-${n}`, checkoutToken: `tok_${uid()}_${n}` }));
    const inserted = await Promise.all(rows.map((payment) => writer.write({ payment, actor: c.actor, eventData: { id: payment.id }, now: new Date() })));
    expect(inserted).toEqual(rows.map(() => true));
    // PostgreSQL: two full groups sent as they filled, then the 6 left; PGlite writes one statement
    // at a time: the first group, then the 18 that queued behind it.
    const grouped = h.kind === 'postgres' ? 3 : 2;
    expect(writer.statements).toBe(grouped);
    // On PostgreSQL the three went together (the pool has room for them); PGlite takes one at a time.
    expect(writer.peakInFlight).toBe(h.kind === 'postgres' ? 3 : 1);
    // Alone, a creation goes at once in a statement of its own.
    expect(await writer.write({ payment: { ...template, id: `pay_alone_${uid()}`, orderId: `k-${uid()}`, checkoutToken: `tok_${uid()}` }, actor: c.actor, eventData: {}, now: new Date() })).toBe(true);
    expect(writer.statements).toBe(grouped + 1);
    // Many full groups at once: as many statements in flight as half the pool allows, no more.
    const many = Array.from({ length: 10 * SEND_AT }, (_, n) => ({ ...template, id: `pay_many_${uid()}_${n}`, orderId: `m-${uid()}-${n}`, checkoutToken: `tok_m_${uid()}_${n}` }));
    await Promise.all(many.map((payment) => writer.write({ payment, actor: c.actor, eventData: { id: payment.id }, now: new Date() })));
    expect(writer.peakInFlight).toBe(h.kind === 'postgres' ? maxInFlight(h.db().pool!.options.max!) : 1);
  });

  it('hands out deposit addresses from reserved blocks: never twice, each the derivation of its index', async () => {
    const seed = seedFromMnemonic(t.config.walletMnemonic);
    const deriver = new DepositAddressDeriver(t.config.walletMnemonic, seed);
    const a = new DepositAddressReserve(new NumberReserve(h.db()), deriver);
    const b = new DepositAddressReserve(new NumberReserve(h.db()), deriver);
    try {
      // Two reserves stand for two processes sharing the sequence; 90 addresses span several blocks and the worker.
      const got = await Promise.all(Array.from({ length: 90 }, (_, i) => (i % 2 ? a : b).next('litecoin', false)));
      expect(new Set(got.map((g) => g.index)).size).toBe(90);
      expect(new Set(got.map((g) => g.address)).size).toBe(90);
      for (const g of got) expect(g.address).toBe(deriveDepositAddress(seed, 'litecoin', false, g.index).address);
      // One reserve hands its numbers out in increasing order.
      const mine = [] as number[];
      for (let i = 0; i < 25; i++) mine.push((await a.next('dogecoin', true)).index);
      expect(mine).toEqual([...mine].sort((x, y) => x - y));
      // Blocks were prepared ahead, without further takes, until STOCK addresses were ready.
      await vi.waitFor(() => expect(a.ready('dogecoin', true)).toBeGreaterThanOrEqual(STOCK), { timeout: 10_000 });
    } finally {
      await deriver.close();
    }
  });
});
