// The exact key set of spec part 2's ledger entry, and the money objects the dashboard socket
// carries (settlement:update, balance:update) being the REST answers themselves.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount } from '../harness/accounts.ts';
import { addMember, input, payment, type Member } from '../harness/settlement.ts';
import type { Json } from '../harness/payments.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { events } from '../../src/events/index.ts';

const ADMIN = { authorization: 'Bearer test-admin-token' };
const keys = (o: Json): string[] => Object.keys(o).sort();
const ENTRY = ['amount', 'chain', 'created_at', 'id', 'merchant_id', 'reference', 'token', 'type', 'usd_amount'];

describeEachDb('object key sets: money', (h) => {
  let t: TestApp;
  const clock = new ManualClock(new Date('2026-04-01T09:00:00Z'));
  beforeAll(async () => { t = await startTestApp(h.db(), { clock }); });
  afterAll(async () => { await t.close(); });

  const call = async (m: Member, url: string) => (clock.advance(1000), t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${await m.token()}` }, remoteAddress: randomIp() }));

  it('Ledger entry: id, merchant_id, type, token, chain, amount, usd_amount, reference, created_at; note only when there is one', async () => {
    const acct = await signupAccount(t.app);
    const owner = await addMember(t, acct.merchant.id, 'owner');
    const p = payment(acct.merchant.id, { token: 'BTC', rate_locked: '60000', settlement: 'custodial' });
    const [s] = await t.services.settlement.settle(h.db(), input(p, [{ amount: 1_000_000n, usd: '600', tx: 'tx_btc_1' }], clock.now()));
    const adjusted = await t.app.inject({ method: 'POST', url: '/admin/ledger/adjustments', headers: ADMIN, remoteAddress: randomIp(), payload: { merchant_id: acct.merchant.id, livemode: false, token: 'BTC', amount: '0.001', note: 'goodwill' } });
    expect(adjusted.statusCode).toBe(201);

    const entries = (await call(owner, '/merchant/ledger?mode=test')).json().entries as Json[];
    expect(entries.map((e) => e.type).sort()).toEqual(['adjustment', 'fee', 'network_fee', 'payment_credit']);
    for (const e of entries) expect(keys(e), e.type).toEqual(e.type === 'adjustment' ? [...ENTRY, 'note'].sort() : ENTRY);
    expect(entries.find((e) => e.type === 'payment_credit')).toMatchObject({ amount: '0.01', usd_amount: '600', reference: `${p.id}:tx_btc_1` });
    expect(entries.find((e) => e.type === 'adjustment')!.note).toBe('goodwill');

    // the trail's ledger is the same entries, in the order written
    const trailLedger = await t.services.settlement.trailLedger(p.id) as Json[];
    expect(trailLedger.map((e) => e.id).sort()).toEqual(entries.filter((e) => e.type !== 'adjustment').map((e) => e.id).sort());
    for (const e of trailLedger) expect(e).toEqual(entries.find((x) => x.id === e.id));

    // the dashboard socket carries the REST objects themselves
    const stored = await h.db().orm.select().from(events).where(eq(events.merchantId, acct.merchant.id)).orderBy(asc(events.seq));
    const settlementUpdate = stored.filter((e) => e.type === 'settlement:update').at(-1)!;
    expect(settlementUpdate.data).toEqual((await call(owner, `/merchant/settlements/${s.id}`)).json().settlement);
    const balanceUpdate = stored.filter((e) => e.type === 'balance:update').at(-1)!;
    expect(balanceUpdate.data).toEqual({ livemode: false, ...(await call(owner, '/merchant/balances?mode=test')).json() });
    for (const b of (balanceUpdate.data as { balances: Json[] }).balances) expect(keys(b)).toEqual(['available', 'chain', 'pending_payout', 'token']);
  });
});
