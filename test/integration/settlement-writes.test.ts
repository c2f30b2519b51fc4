// The settlement room's write routes against another merchant's ids, and the password re-check
// limit on changing a payout address (spec 4.4 Payout addresses and Payouts, 7 Errors, 8 Limits):
// nobody pays out to, quotes for, edits or deletes another merchant's payout address, and wrong
// passwords on PATCH count toward the same 429 as on POST.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount } from '../harness/accounts.ts';
import { ADDR, addMember, expectLedgerHolds, type Member } from '../harness/settlement.ts';
import { payoutAddresses, settlements } from '../../src/settlement/index.ts';
import { newId } from '../../src/platform/ids.ts';
import { dec } from '../../src/money/index.ts';

const ADMIN = { authorization: 'Bearer test-admin-token' };

describeEachDb('settlement write routes', (h) => {
  let t: TestApp;
  beforeAll(async () => { t = await startTestApp(h.db()); });
  afterAll(async () => { await t.close(); });
  afterEach(async () => { await expectLedgerHolds(h.db()); });

  const call = async (m: Member, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({ method, url, payload: payload as Record<string, unknown>, headers: { authorization: `Bearer ${await m.token()}` }, remoteAddress: randomIp() });
  const funded = async () => {
    const acct = await signupAccount(t.app);
    const owner = await addMember(t, acct.merchant.id, 'owner');
    const res = await call(owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON, password: owner.password });
    expect(res.statusCode).toBe(201);
    const adj = await t.app.inject({ method: 'POST', url: '/admin/ledger/adjustments', headers: ADMIN, payload: { merchant_id: acct.merchant.id, livemode: true, token: 'USDT_TRC20', amount: '100', note: 'funding' } });
    expect(adj.statusCode).toBe(201);
    return { id: acct.merchant.id, owner, address: res.json().address as { id: string; label: string } };
  };
  const addressRow = async (id: string) => (await h.db().orm.select().from(payoutAddresses).where(eq(payoutAddresses.id, id)))[0];

  it('refuses another merchant\'s payout address to payouts, quotes, edits and deletion, leaving it as it was', async () => {
    const a = await funded();
    const b = await funded();
    const unknown = { error: 'unknown payout address: give the id of one of your live payout addresses' };
    const pay = await call(b.owner, 'POST', '/merchant/payouts', { address_id: a.address.id, amount: '20' });
    expect([pay.statusCode, pay.json()]).toEqual([400, unknown]);
    const quote = await call(b.owner, 'GET', `/merchant/payouts/quote?address_id=${a.address.id}&amount=20`);
    expect([quote.statusCode, quote.json()]).toEqual([400, unknown]);
    const patch = await call(b.owner, 'PATCH', `/merchant/payout-addresses/${a.address.id}`, { address: ADDR.TRON_2, label: 'mine now', password: b.owner.password });
    expect([patch.statusCode, patch.json()]).toEqual([404, { error: 'not found' }]);
    const del = await call(b.owner, 'DELETE', `/merchant/payout-addresses/${a.address.id}`);
    expect([del.statusCode, del.json()]).toEqual([404, { error: 'not found' }]);
    expect(await addressRow(a.address.id)).toMatchObject({ merchantId: a.id, address: ADDR.TRON, label: a.address.label, deletedAt: null });
    // neither balance moved
    for (const m of [a, b]) {
      expect((await call(m.owner, 'GET', '/merchant/balances')).json().balances).toEqual([{ token: 'USDT_TRC20', chain: 'tron', available: '100', pending_payout: '0' }]);
    }
  });

  it('counts wrong passwords on changing an address: after 5, even the right one answers 429 and nothing changes', async () => {
    const a = await funded();
    const finance = await addMember(t, a.id, 'finance');
    const change = (password: string) => call(finance, 'PATCH', `/merchant/payout-addresses/${a.address.id}`, { address: ADDR.TRON_2, password });
    for (let i = 0; i < 5; i++) {
      const res = await change('wrong-password');
      expect([res.statusCode, res.json()]).toEqual([403, { error: 'password is incorrect' }]);
    }
    const limited = await change(finance.password);
    expect([limited.statusCode, limited.json()]).toEqual([429, { error: 'rate limit exceeded' }]);
    expect((await addressRow(a.address.id)).address).toBe(ADDR.TRON);
    // the count is the member's: the owner changes it with the right password
    const owner = await call(a.owner, 'PATCH', `/merchant/payout-addresses/${a.address.id}`, { address: ADDR.TRON_2, password: a.owner.password });
    expect([owner.statusCode, owner.json().address.address]).toEqual([200, ADDR.TRON_2]);
  });

  it('answers 409 to a retry of a failed settlement on a chain that has no node here, and leaves it failed', async () => {
    const acct = await signupAccount(t.app);
    const now = new Date();
    const id = newId('stl', now);
    await h.db().orm.insert(settlements).values({
      id, merchantId: acct.merchant.id, paymentId: newId('pay', now), livemode: true, mode: 'direct', token: 'ETH', chain: 'ethereum',
      depositTx: `0x${'ab'.repeat(32)}`, amount: 10n ** 16n, serviceFee: 10n ** 14n, networkFee: 10n ** 13n, conversionFee: 0n, net: 10n ** 16n - 10n ** 14n - 10n ** 13n,
      usdValue: dec('30'), usdRate: dec('3000'), serviceFeeUsd: dec('0.30'), networkFeeUsd: dec('0.03'), conversionFeeUsd: dec('0'),
      netUsd: dec('29.67'), destination: ADDR.EVM, status: 'failed', note: 'the transfer would fail', input: {}, createdAt: now, updatedAt: now,
    });
    const res = await t.app.inject({ method: 'POST', url: `/admin/settlements/${id}/retry`, headers: ADMIN, remoteAddress: randomIp() });
    expect([res.statusCode, res.json()]).toEqual([409, { error: 'transfers on ethereum cannot be made now' }]);
    const [row] = await h.db().orm.select().from(settlements).where(eq(settlements.id, id));
    expect([row.status, row.note]).toEqual(['failed', 'the transfer would fail']);
  });

  it('keeps every settlement operator route behind the admin token: 401 and nothing moves', async () => {
    const a = await funded();
    const payout = (await call(a.owner, 'POST', '/merchant/payouts', { address_id: a.address.id, amount: '20' })).json().payout;
    const routes: [string, string, Record<string, unknown>?][] = [
      ['GET', '/admin/payouts'], ['POST', `/admin/payouts/${payout.id}/approve`], ['POST', `/admin/payouts/${payout.id}/reject`, { note: 'x' }],
      ['POST', `/admin/payouts/${payout.id}/sent`, { tx_id: 'x' }], ['GET', '/admin/settlements'], ['POST', '/admin/settlements/stl_x/retry'],
      ['POST', '/admin/settlements/stl_x/return', { note: 'x' }],
      ['POST', '/admin/ledger/adjustments', { merchant_id: a.id, livemode: true, token: 'USDT_TRC20', amount: '1000', note: 'x' }],
    ];
    for (const [method, url, payload] of routes) {
      for (const headers of [{}, { authorization: 'Bearer not-the-admin-token' }, { authorization: `Bearer ${await a.owner.token()}` }]) {
        const res = await t.app.inject({ method: method as 'GET' | 'POST', url, headers, payload, remoteAddress: randomIp() });
        expect([res.statusCode, res.json()], `${method} ${url}`).toEqual([401, { error: 'invalid admin token' }]);
      }
    }
    expect((await call(a.owner, 'GET', '/merchant/payouts')).json().payouts.map((p: { status: string }) => p.status)).toEqual(['requested']);
    expect((await call(a.owner, 'GET', '/merchant/balances')).json().balances).toEqual([{ token: 'USDT_TRC20', chain: 'tron', available: '80', pending_payout: '20' }]);
  });
});
