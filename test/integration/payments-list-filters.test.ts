// The filters of the payments lists (spec 4.4 `GET /v1/payments`: status, token, chain, store_id;
// README "Dashboard additions": order_id, q, from, to) on both /v1 and /merchant: each known value
// keeps exactly its payments, an unknown one matches nothing (never ignored), empty or blank values
// filter nothing, the 200-character limits are inclusive, and `total` counts the filtered rows.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, signupAccount, tokenHeader, uid, type Account } from '../harness/accounts.ts';
import { createPayment, type Json } from '../harness/payments.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { stores } from '../../src/accounts/index.ts';
import { insertApiKey } from '../../src/accounts/api-keys.ts';
import { payments } from '../../src/payments/schema.ts';
import { queryRows } from '../../src/platform/db/index.ts';
import { givenOnce } from '../../src/payments/list-filters.ts';

describeEachDb('payments list filters', (h) => {
  let t: TestApp;
  let acct: Account;
  let storeKey: string;
  let storeId: string;
  const clock = new ManualClock(new Date());
  const made: Record<'eth' | 'usdt' | 'trx' | 'failed' | 'store', Json> = {} as never;
  const tag = uid();

  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock });
    acct = await signupAccount(t.app);
    const now = clock.now();
    storeId = `sto_${uid()}`;
    await h.db().orm.insert(stores).values({ id: storeId, merchantId: acct.merchant.id, name: 'Shop', createdAt: now, updatedAt: now });
    storeKey = (await insertApiKey(h.db().orm, { merchantId: acct.merchant.id, livemode: false, storeId, label: 's', access: 'full', createdBy: null, at: now })).secret;
    made.eth = await createPayment(t.app, acct.testKey, { order_id: `eth-${tag}`, token: 'ETH' });
    made.usdt = await createPayment(t.app, acct.testKey, { order_id: `usdt-${tag}`, token: 'USDT_ERC20' });
    made.trx = await createPayment(t.app, acct.testKey, { order_id: `trx-${tag}`, token: 'TRX' });
    made.failed = await createPayment(t.app, acct.testKey, { order_id: `failed-${tag}`, token: 'TRX' });
    await h.db().orm.update(payments).set({ status: 'failed' }).where(eq(payments.id, made.failed.id));
    made.store = await createPayment(t.app, storeKey, { order_id: `store-${tag}`, token: 'ETH' });
  });
  afterAll(async () => { await t.close(); });
  beforeEach(() => { clock.advance(1100); });

  const v1 = (qs: string) => t.app.inject({ method: 'GET', url: `/v1/payments?${qs}`, headers: keyHeader(acct.testKey) });
  const dash = (qs: string) => t.app.inject({ method: 'GET', url: `/merchant/payments?mode=test&${qs}`, headers: tokenHeader(acct.accessToken) });
  /** The payments (by their names here) each list answers to `qs`, checked the same on /v1 and /merchant, with `total`. */
  async function names(qs: string): Promise<string[]> {
    const answers = [];
    for (const list of [v1, dash]) {
      const res = await list(qs);
      expect(res.statusCode, `${qs}: ${res.body}`).toBe(200);
      const body = res.json() as { payments: Json[]; total: number };
      const byId = new Map(Object.entries(made).map(([k, p]) => [p.id as string, k]));
      const got = body.payments.map((p) => byId.get(p.id) ?? `other:${p.id}`).sort();
      expect(body.total, qs).toBe(got.length);
      answers.push(got);
    }
    expect(answers[1], qs).toEqual(answers[0]);
    return answers[0];
  }
  const ours = (qs: string) => names(`q=${tag}&${qs}`);

  it('status keeps only payments in that status; an unknown status matches none', async () => {
    expect(await ours('status=failed')).toEqual(['failed']);
    expect(await ours('status=pending')).toEqual(['eth', 'store', 'trx', 'usdt']);
    expect(await ours('status=confirmed')).toEqual([]);
    expect(await ours('status=bogus')).toEqual([]);
    expect(await ours('status=FAILED')).toEqual([]);
  });

  it('token keeps only that coin; an unknown token matches none', async () => {
    expect(await ours('token=TRX')).toEqual(['failed', 'trx']);
    expect(await ours('token=USDT_ERC20')).toEqual(['usdt']);
    expect(await ours('token=DOGE')).toEqual([]);
    expect(await ours('token=NOPE')).toEqual([]);
    expect(await ours('token=trx')).toEqual([]);
  });

  it('chain keeps only that chain\'s coins; an unknown chain matches none', async () => {
    expect(await ours('chain=ethereum')).toEqual(['eth', 'store', 'usdt']);
    expect(await ours('chain=tron')).toEqual(['failed', 'trx']);
    expect(await ours('chain=bitcoin')).toEqual([]);
    expect(await ours('chain=mars')).toEqual([]);
  });

  it('store_id keeps only that store\'s payments; an unknown or malformed one matches none', async () => {
    expect(await ours(`store_id=${storeId}`)).toEqual(['store']);
    expect(await ours(`store_id=sto_${uid()}`)).toEqual([]);
    expect(await ours(`store_id=${encodeURIComponent('not an id!')}`)).toEqual([]);
    // A storefront key's own store is its scope: the filter is ignored there.
    const scoped = (await t.app.inject({ method: 'GET', url: `/v1/payments?q=${tag}&store_id=sto_${uid()}`, headers: keyHeader(storeKey) })).json();
    expect(scoped.payments.map((p: Json) => p.id)).toEqual([made.store.id]);
  });

  it('filters combine (all must hold)', async () => {
    expect(await ours('token=TRX&status=pending')).toEqual(['trx']);
    expect(await ours('chain=ethereum&status=failed')).toEqual([]);
    expect(await ours(`chain=ethereum&store_id=${storeId}&order_id=store-${tag}`)).toEqual(['store']);
    expect(await ours(`chain=tron&order_id=store-${tag}`)).toEqual([]);
  });

  it('empty or blank values filter nothing; q is trimmed', async () => {
    const all = ['eth', 'failed', 'store', 'trx', 'usdt'];
    expect(await ours('status=&token=&chain=&store_id=&order_id=&from=&to=')).toEqual(all);
    expect(await names(`q=${encodeURIComponent(`  ${tag}  `)}`)).toEqual(all);
    const blank = await names(`q=${encodeURIComponent('   ')}&limit=200`);
    expect(blank).toEqual(expect.arrayContaining(all));
  });

  it('a q or order_id of exactly 200 characters is accepted; 201 is refused with its message on both lists', async () => {
    expect(await names(`q=${'x'.repeat(200)}`)).toEqual([]);
    expect(await names(`order_id=${'x'.repeat(200)}`)).toEqual([]);
    // Trimmed first: 200 characters between spaces are accepted.
    expect(await names(`q=${encodeURIComponent(` ${'x'.repeat(200)} `)}`)).toEqual([]);
    for (const list of [v1, dash]) {
      for (const [qs, error] of [
        [`q=${'x'.repeat(201)}`, 'q must be at most 200 characters'],
        [`order_id=${'x'.repeat(201)}`, 'order_id must be at most 200 characters'],
        ['from=2026-02-30', 'from must be a date: 2006-01-02'],
        ['to=2026-1-2', 'to must be a date: 2006-01-02'],
        ['from=2026-03-02&to=2026-03-01', 'from must not be after to'],
      ]) {
        const res = await list(qs);
        expect([res.statusCode, res.json()], qs).toEqual([400, { error }]);
      }
    }
  });

  it('total counts the filtered rows past a page, a storefront key\'s own rows, and each mode\'s, never another list\'s total', async () => {
    const total = async (res: Promise<{ json(): unknown }>) => ((await res).json() as { total: number }).total;
    // The account's unfiltered test total first (kept between pages on PGlite), then lists that must not reuse it.
    expect(await total(dash('limit=1'))).toBe(5);
    expect(await total(v1('limit=1'))).toBe(5);
    expect(await total(dash('token=TRX&limit=1'))).toBe(2);
    expect(await total(v1('chain=ethereum&limit=1'))).toBe(3);
    expect(await total(dash('status=pending&limit=1&offset=1'))).toBe(4);
    expect(await total(t.app.inject({ method: 'GET', url: '/v1/payments?limit=1', headers: keyHeader(storeKey) }))).toBe(1);
    // Two live payments (copies of a test one): the live list has its own total, and the test one keeps its.
    const cols = (await queryRows<{ column_name: string }>(h.db().orm, sql`select column_name from information_schema.columns where table_name = 'payments' and table_schema = current_schema() order by ordinal_position`)).map((r) => r.column_name);
    for (const n of [1, 2]) {
      const over: Record<string, string> = { id: `'pay_live${n}_${tag}'`, order_id: `'live${n}-${tag}'`, checkout_token: `'ct_live${n}_${tag}'`, livemode: 'true' };
      await h.db().orm.execute(sql.raw(`insert into payments (${cols.map((c) => `"${c}"`).join(', ')}) select ${cols.map((c) => over[c] ?? `"${c}"`).join(', ')} from payments where id = '${made.eth.id}'`));
    }
    const live = (qs: string) => t.app.inject({ method: 'GET', url: `/merchant/payments?${qs}`, headers: tokenHeader(acct.accessToken) });
    expect(await total(live('limit=1'))).toBe(2);
    expect(await total(dash('limit=1'))).toBe(5);
    expect(await total(live('limit=1'))).toBe(2);
  });

  it('refuses a filter given twice, naming it, rather than filtering nothing', async () => {
    for (const [field, a, b] of [['status', 'pending', 'failed'], ['token', 'ETH', 'TRX'], ['chain', 'ethereum', 'tron'], ['store_id', storeId, storeId], ['order_id', `eth-${tag}`, `trx-${tag}`], ['q', tag, tag], ['from', '2026-01-01', '2026-01-02'], ['to', '2026-01-01', '2026-01-02']]) {
      for (const list of [v1, dash]) {
        const res = await list(`${field}=${a}&${field}=${b}`);
        expect([res.statusCode, res.json()], field).toEqual([400, { error: givenOnce(field) }]);
      }
    }
  });
});
