// The payments list's `total` (spec 4.4, GET /merchant/payments): exact across pages, new payments
// and rows written by other means, on both engines; and on PGlite the unfiltered total kept between
// pages (src/payments/list-totals.ts), counted again whenever the `payments_changes` counter moves.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { createPayment } from '../harness/payments.ts';
import { queryRows } from '../../src/platform/db/index.ts';
import { ListTotals } from '../../src/payments/list-totals.ts';

describeEachDb('payments list total', (h) => {
  let t: TestApp;
  let owner: Account;

  beforeAll(async () => { t = await startTestApp(h.db()); });
  afterAll(async () => { await t.close(); });

  const list = async (q: string) => (await t.app.inject({ method: 'GET', url: `/merchant/payments?mode=test${q}`, headers: tokenHeader(owner.accessToken) })).json() as { payments: { id: string }[]; total: number };
  const columns = async () => (await queryRows<{ column_name: string }>(h.db().orm, sql`select column_name from information_schema.columns where table_name = 'payments' and table_schema = current_schema() order by ordinal_position`)).map((r) => r.column_name);
  /** A copy of a payment written straight into the table (as an import or a bench would). */
  async function copyRow(id: string, copy: string): Promise<void> {
    const cols = await columns();
    const over: Record<string, string> = { id: `'${copy}'`, order_id: `'${copy}'`, checkout_token: `'ct_${copy}'` };
    await h.db().orm.execute(sql.raw(`insert into payments (${cols.map((c) => `"${c}"`).join(', ')}) select ${cols.map((c) => over[c] ?? `"${c}"`).join(', ')} from payments where id = '${id}'`));
  }

  it('is exact on every page, after a new payment, and after rows added, moved or removed outside the service', async () => {
    owner = await signupAccount(t.app);
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createPayment(t.app, owner.testKey, { amount_usd: '10', token: 'TRX' }));
    expect((await list('&limit=2')).total).toBe(3);
    const last = await list('&limit=2&offset=2');
    expect([last.payments.length, last.total]).toEqual([1, 3]);
    expect((await list('&limit=2&offset=4')).total).toBe(3);
    await createPayment(t.app, owner.testKey, { amount_usd: '11', token: 'TRX' });
    expect((await list('&limit=2')).total).toBe(4);
    await copyRow(made[0].id, `pay_copy_${owner.merchant.id}`);
    expect((await list('&limit=2')).total).toBe(5);
    await h.db().orm.execute(sql.raw(`update payments set livemode = true where id = '${made[1].id}'`));
    expect((await list('&limit=2')).total).toBe(4);
    await h.db().orm.execute(sql.raw(`delete from payments where id = 'pay_copy_${owner.merchant.id}'`));
    expect((await list('&limit=2')).total).toBe(3);
    // Filtered lists always count.
    expect((await list('&limit=1&status=pending')).total).toBe(3);
  });

  it('ListTotals counts once while payments are unchanged, and again after any statement that adds, moves or removes one', async () => {
    const acct = await signupAccount(t.app);
    const p = await createPayment(t.app, acct.testKey, { amount_usd: '10', token: 'TRX' });
    const totals = new ListTotals();
    let counts = 0;
    const count = async () => ++counts;
    const total = () => totals.total(h.db().orm, 'scope', count);
    expect([await total(), await total()]).toEqual([1, 1]);
    // Statements that change nothing the total depends on leave it kept.
    await h.db().orm.execute(sql.raw(`update payments set status = status where id = '${p.id}'`));
    expect(await total()).toBe(1);
    await createPayment(t.app, acct.testKey, { amount_usd: '12', token: 'TRX' });
    expect([await total(), await total()]).toEqual([2, 2]);
    await copyRow(p.id, `pay_tot_${acct.merchant.id}`);
    expect(await total()).toBe(3);
    await h.db().orm.execute(sql.raw(`update payments set livemode = livemode where id = '${p.id}'`));
    expect(await total()).toBe(4);
    await h.db().orm.execute(sql.raw(`delete from payments where id = 'pay_tot_${acct.merchant.id}'`));
    expect(await total()).toBe(5);
    // Another scope has its own total.
    expect(await totals.total(h.db().orm, 'other', count)).toBe(6);
    expect(await total()).toBe(5);
  });
});
