// Merchant payouts, operator review and adjustments, and the money read routes (spec 1 Payouts,
// 4.4 Balances/ledger/settlements and Payouts, CONTRACT.md operator API).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount, type Account } from '../harness/accounts.ts';
import { ADDR, addMember, expectLedgerHolds, input, payment, type Member } from '../harness/settlement.ts';
import { events } from '../../src/events/index.ts';
import { auditEntries } from '../../src/accounts/schema.ts';
import { amountBelowFee, payoutAddresses, type TransferRequest } from '../../src/settlement/index.ts';
import type { Executor } from '../../src/platform/db/index.ts';
import { createPayout } from '../../src/settlement/payouts/payout-store.ts';
import { dec } from '../../src/money/index.ts';
import pg from 'pg';
import { untilLockWaiters } from '../harness/lock-waits.ts';

const ADMIN = { authorization: 'Bearer test-admin-token' };

describeEachDb('payouts and statements', (h) => {
  let t: TestApp;
  let acct: Account;
  let merchantId: string;
  let owner: Member;
  let finance: Member;
  let developer: Member;
  let viewer: Member;
  let trc: { id: string };
  let bep: { id: string };
  let btc: { id: string };
  let testAddr: { id: string };

  const call = async (m: Member, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({ method, url, payload: payload as Record<string, unknown>, headers: { authorization: `Bearer ${await m.token()}` }, remoteAddress: randomIp() });
  const admin = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    t.app.inject({ method, url, payload: payload as Record<string, unknown>, headers: ADMIN, remoteAddress: randomIp() });
  const adjust = (body: Record<string, unknown>) => admin('POST', '/admin/ledger/adjustments', body);
  const balance = async (token: string, mode = '') =>
    (await call(viewer, 'GET', `/merchant/balances${mode}`)).json().balances.find((b: { token: string }) => b.token === token);
  const addAddr = async (token: string, address: string, mode = '') =>
    (await call(owner, 'POST', `/merchant/payout-addresses${mode}`, { token, address, password: owner.password })).json().address;

  beforeAll(async () => {
    t = await startTestApp(h.db());
    acct = await signupAccount(t.app);
    merchantId = acct.merchant.id;
    owner = await addMember(t, merchantId, 'owner');
    finance = await addMember(t, merchantId, 'finance');
    developer = await addMember(t, merchantId, 'developer');
    viewer = await addMember(t, merchantId, 'viewer');
    trc = await addAddr('USDT_TRC20', ADDR.TRON);
    bep = await addAddr('USDT_BEP20', ADDR.EVM);
    btc = await addAddr('BTC', ADDR.BTC);
    testAddr = await addAddr('USDT_TRC20', ADDR.TRON, '?mode=test');
  });
  afterAll(async () => { await t.close(); });
  afterEach(async () => { await expectLedgerHolds(h.db()); });

  describe('operator adjustments', () => {
    it.each([
      [{ merchant_id: 'mer_nope', livemode: true, token: 'USDT_TRC20', amount: '1', note: 'x' }, 'unknown merchant_id'],
      [{ livemode: 'yes', token: 'USDT_TRC20', amount: '1', note: 'x' }, 'livemode (true or false) is required'],
      [{ livemode: true, token: 'USD', amount: '1', note: 'x' }, 'token must be one of the supported tokens'],
      [{ livemode: true, token: 'USDT_TRC20', amount: '0', note: 'x' }, 'amount must be a non-zero signed decimal of the token (e.g. "-1.5")'],
      [{ livemode: true, token: 'USDT_TRC20', amount: '1.0000001', note: 'x' }, 'amount must be a non-zero signed decimal of the token (e.g. "-1.5")'],
      [{ livemode: true, token: 'USDT_TRC20', amount: '1', note: ' ' }, 'note is required'],
      [{ livemode: true, token: 'USDT_TRC20', amount: '1', note: 'n'.repeat(501) }, 'note must be at most 500 characters'],
      [{ livemode: true, token: 'USDT_TRC20', amount: '1', note: 'a\u0000' }, 'note must not contain NUL characters'],
      [{ livemode: true, token: 'USDT_TRC20', amount: '-1', note: 'x' }, 'the adjustment would take the balance below zero'],
    ])('refuses %j with 400 %s', async (body, message) => {
      const res = await adjust({ merchant_id: merchantId, ...body });
      expect([res.statusCode, res.json()]).toEqual([400, { error: message }]);
    });

    it('needs the admin token', async () => {
      const res = await t.app.inject({ method: 'POST', url: '/admin/ledger/adjustments', payload: {}, headers: { authorization: 'Bearer nope' } });
      expect([res.statusCode, res.json()]).toEqual([401, { error: 'invalid admin token' }]);
    });

    it('credits the balance with an adjustment entry, audited as admin', async () => {
      const res = await adjust({ merchant_id: merchantId, livemode: true, token: 'USDT_TRC20', amount: '1000', note: 'opening balance' });
      expect(res.statusCode).toBe(201);
      expect(res.json().entry).toMatchObject({ merchant_id: merchantId, type: 'adjustment', token: 'USDT_TRC20', chain: 'tron', amount: '1000', usd_amount: '1000', note: 'opening balance' });
      expect(await balance('USDT_TRC20')).toEqual({ token: 'USDT_TRC20', chain: 'tron', available: '1000', pending_payout: '0' });
      expect((await adjust({ merchant_id: merchantId, livemode: true, token: 'BTC', amount: 0.01, note: 'btc' })).json().entry).toMatchObject({ amount: '0.01', usd_amount: '600' });
      const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, merchantId), eq(auditEntries.action, 'ledger.adjusted')));
      expect(audit).toHaveLength(2);
      expect((audit[0].actor as { kind: string }).kind).toBe('admin');
    });
    it('reads a JSON number amount as the decimal it is, 5e-7 BTC (0.0000005) included', async () => {
      const other = (await signupAccount(t.app)).merchant.id;
      const res = await adjust({ merchant_id: other, livemode: true, token: 'BTC', amount: 0.0000005, note: 'dust' });
      expect([res.statusCode, res.json().entry?.amount]).toEqual([201, '0.0000005']);
      const down = await adjust({ merchant_id: other, livemode: true, token: 'BTC', amount: -5e-7, note: 'dust back' });
      expect([down.statusCode, down.json().entry?.amount]).toEqual([201, '-0.0000005']);
    });
  });

  describe('quote and request', () => {
    it('quotes the network fee and minimum without an amount, and the figures with one, holding nothing', async () => {
      const bare = await call(finance, 'GET', `/merchant/payouts/quote?address_id=${trc.id}`);
      expect(bare.statusCode).toBe(200);
      expect(bare.json().quote).toEqual({
        address_id: trc.id, token: 'USDT_TRC20', chain: 'tron', from_token: 'USDT_TRC20', from_chain: 'tron',
        network_fee: '1', network_fee_usd: '1', min_payout_usd: '10', available: '1000',
      });
      const full = (await call(owner, 'GET', `/merchant/payouts/quote?address_id=${bep.id}&amount=100&from_token=USDT_TRC20`)).json().quote;
      expect(full).toMatchObject({ token: 'USDT_BEP20', from_token: 'USDT_TRC20', network_fee: '0.5', amount: '100', send_amount: '99.5', amount_usd: '100', send_amount_usd: '99.5', usd_rate: '1' });
      expect((await balance('USDT_TRC20')).available).toBe('1000');
      const viewerQuote = await call(viewer, 'GET', `/merchant/payouts/quote?address_id=${trc.id}`);
      expect(viewerQuote.statusCode).toBe(403);
    });

    it.each([
      [{ address_id: '' }, 'address_id is required'],
      [{ address_id: 'pa_nope' }, 'unknown payout address: give the id of one of your live payout addresses'],
      [{ amount: '9.99' }, 'the minimum payout is $10'],
      [{ amount: '9.999999' }, 'the minimum payout is $10'],
      [{ amount: '5000' }, 'your USDT_TRC20 balance holds 1000 USDT_TRC20'],
      [{ amount: '-5' }, 'amount must be more than 0'],
      [{ amount: '10.1234567' }, 'amount has more than 6 decimals'],
      [{ amount: 'lots' }, 'amount must be a number or a decimal string'],
      [{ from_token: 'BTC' }, 'a BTC balance cannot be paid to a USDT_TRC20 address: only a USDT balance can go to a USDT address on another network'],
      [{ from_token: 'ETH' }, 'an ETH balance cannot be paid to a USDT_TRC20 address: only a USDT balance can go to a USDT address on another network'],
      [{ from_token: 'USDT_TRC20', from_chain: 'bsc' }, 'from_token and from_chain name different balances'],
      [{ from_token: 'NOPE' }, 'from_token must be one of your balance coins, e.g. USDT_TRC20'],
      [{ from_token: 5 }, 'from_token must be one of your balance coins, e.g. USDT_TRC20'],
    ])('refuses %j with 400 %s', async (body, message) => {
      const res = await call(finance, 'POST', '/merchant/payouts', { address_id: trc.id, ...body });
      expect([res.statusCode, res.json()]).toEqual([400, { error: message }]);
    });

    it('refuses a test address, developers, viewers and API keys', async () => {
      expect((await call(finance, 'POST', '/merchant/payouts', { address_id: testAddr.id })).json()).toEqual({ error: 'unknown payout address: give the id of one of your live payout addresses' });
      for (const m of [developer, viewer]) {
        const res = await call(m, 'POST', '/merchant/payouts', { address_id: trc.id });
        expect([res.statusCode, res.json()]).toEqual([403, { error: 'insufficient permissions' }]);
      }
      const key = await t.app.inject({ method: 'POST', url: '/merchant/payouts', payload: { address_id: trc.id }, headers: { authorization: `Bearer ${acct.liveKey}` } });
      expect(key.statusCode).toBe(401);
    });

    it('holds the amount in pending_payout and cancels back while requested', async () => {
      const res = await call(finance, 'POST', '/merchant/payouts', { address_id: trc.id, amount: '100' });
      expect(res.statusCode).toBe(201);
      const p = res.json().payout;
      expect(p).toMatchObject({
        token: 'USDT_TRC20', chain: 'tron', from_token: 'USDT_TRC20', from_chain: 'tron', amount: '100', network_fee: '1', send_amount: '99',
        amount_usd: '100', network_fee_usd: '1', send_amount_usd: '99', usd_rate: '1', address_id: trc.id, address: ADDR.TRON,
        status: 'requested', requested_by: finance.userId, livemode: true,
      });
      expect(await balance('USDT_TRC20')).toMatchObject({ available: '900', pending_payout: '100' });
      const c = await call(owner, 'POST', `/merchant/payouts/${p.id}/cancel`);
      expect(c.statusCode).toBe(200);
      expect(c.json().payout.status).toBe('canceled');
      expect(await balance('USDT_TRC20')).toMatchObject({ available: '1000', pending_payout: '0' });
      const again = await call(owner, 'POST', `/merchant/payouts/${p.id}/cancel`);
      expect([again.statusCode, again.json()]).toEqual([409, { error: 'payout is not in a state that allows this' }]);
      const missing = await call(owner, 'POST', '/merchant/payouts/po_nope/cancel');
      expect(missing.statusCode).toBe(404);
      const ledger = (await call(viewer, 'GET', '/merchant/ledger?token=USDT_TRC20&limit=2')).json();
      expect(ledger.entries.map((e: { type: string; amount: string; reference: string }) => [e.type, e.amount, e.reference]))
        .toEqual([['payout_release', '100', p.id], ['payout_hold', '-100', p.id]]);
      const types = (await h.db().orm.select().from(events).where(and(eq(events.merchantId, merchantId), inArray(events.type, ['payout:update']))).orderBy(events.seq)).map((e) => (e.data as { status: string }).status);
      expect(types).toEqual(['requested', 'canceled']);
    });

    it('pays a USDT_TRC20 balance to a USDT address on another network, and BTC to BTC; absent amount means all', async () => {
      const cross = (await call(finance, 'POST', '/merchant/payouts', { address_id: bep.id, from_token: 'USDT_TRC20', amount: 50 })).json().payout;
      expect(cross).toMatchObject({ token: 'USDT_BEP20', chain: 'bsc', from_token: 'USDT_TRC20', amount: '50', network_fee: '0.5', send_amount: '49.5' });
      const all = (await call(finance, 'POST', '/merchant/payouts', { address_id: btc.id })).json().payout;
      expect(all).toMatchObject({ token: 'BTC', from_token: 'BTC', amount: '0.01', amount_usd: '600', usd_rate: '60000', network_fee: '0.00003334', network_fee_usd: '2' });
      expect(await balance('BTC')).toMatchObject({ available: '0', pending_payout: '0.01' });
      const list = (await call(viewer, 'GET', '/merchant/payouts?limit=2')).json();
      expect(list).toMatchObject({ total: 3, limit: 2, offset: 0 });
      expect(list.payouts.map((p: { id: string }) => p.id)).toEqual([all.id, cross.id]);
      expect((await call(viewer, 'GET', '/merchant/payouts?status=canceled')).json().payouts).toHaveLength(1);
      expect((await call(viewer, 'GET', '/merchant/payouts?token=BTC')).json().payouts.map((p: { id: string }) => p.id)).toEqual([all.id]);
    });

    it('refuses an unknown status or token filter as the operator\'s list does (it listed every payout)', async () => {
      for (const [query, error] of [
        ['status=lost', 'status must be one of requested, canceled, approved, rejected, sent'],
        ['status=Requested', 'status must be one of requested, canceled, approved, rejected, sent'],
        ['status=requested&status=sent', 'status must be one of requested, canceled, approved, rejected, sent'],
        ['token=DOGE2', 'token must be one of the supported tokens'],
        ['token=btc', 'token must be one of the supported tokens'],
        ['token=BTC&token=ETH', 'token must be one of the supported tokens'],
        ['status=sent&token=DOGE2', 'token must be one of the supported tokens'],
      ]) {
        const bad = await call(viewer, 'GET', `/merchant/payouts?${query}`);
        expect([query, bad.statusCode, bad.json()]).toEqual([query, 400, { error }]);
      }
      const every = (await call(viewer, 'GET', '/merchant/payouts')).json();
      expect(every.total).toBe(3);
      expect((await call(viewer, 'GET', '/merchant/payouts?status=&token=')).json().total).toBe(3);
      expect((await call(viewer, 'GET', '/merchant/payouts?status=requested&token=BTC')).json().total).toBe(1);
    });
  });

  describe('operator review', () => {
    it('approves, sends and rejects with webhooks (always live) and the amount back on rejection', async () => {
      const requested = (await admin('GET', '/admin/payouts?status=requested')).json().payouts.filter((p: { merchant_id: string }) => p.merchant_id === merchantId);
      expect(requested).toHaveLength(2);
      const [btcPayout, cross] = requested;
      expect((await admin('POST', `/admin/payouts/${btcPayout.id}/sent`, { tx_id: 'x' })).statusCode).toBe(409);
      const approved = await admin('POST', `/admin/payouts/${btcPayout.id}/approve`);
      expect([approved.statusCode, approved.json().payout.status]).toEqual([200, 'approved']);
      expect((await call(owner, 'POST', `/merchant/payouts/${btcPayout.id}/cancel`)).statusCode).toBe(409);
      expect((await admin('POST', `/admin/payouts/${btcPayout.id}/sent`, {})).json()).toEqual({ error: 'tx_id is required' });
      // a transaction id is at most 200 characters (code points), without NUL
      for (const [tx_id, error] of [['t'.repeat(201), 'tx_id must be at most 200 characters'], ['a\u0000', 'tx_id must not contain NUL characters']]) {
        const res = await admin('POST', `/admin/payouts/${btcPayout.id}/sent`, { tx_id });
        expect([res.statusCode, res.json()]).toEqual([400, { error }]);
      }
      const sent = (await admin('POST', `/admin/payouts/${btcPayout.id}/sent`, { tx_id: 'btc-tx-1' })).json().payout;
      expect(sent).toMatchObject({ status: 'sent', tx_id: 'btc-tx-1' });
      expect(await balance('BTC')).toMatchObject({ available: '0', pending_payout: '0' });
      expect((await admin('POST', `/admin/payouts/${cross.id}/reject`, {})).json()).toEqual({ error: 'note is required' });
      for (const [note, error] of [['n'.repeat(501), 'note must be at most 500 characters'], ['a\u0000', 'note must not contain NUL characters']]) {
        const res = await admin('POST', `/admin/payouts/${cross.id}/reject`, { note });
        expect([res.statusCode, res.json()]).toEqual([400, { error }]);
      }
      const rejected = (await admin('POST', `/admin/payouts/${cross.id}/reject`, { note: 'address under review' })).json().payout;
      expect(rejected).toMatchObject({ status: 'rejected', review_note: 'address under review' });
      expect(await balance('USDT_TRC20')).toMatchObject({ available: '1000', pending_payout: '0' });
      const hooks = await h.db().orm.select().from(events).where(and(eq(events.merchantId, merchantId), inArray(events.type, ['payout.approved', 'payout.sent', 'payout.rejected']))).orderBy(events.seq);
      expect(hooks.map((e) => [e.type, e.livemode, (e.data as { id: string }).id])).toEqual([
        ['payout.approved', true, btcPayout.id], ['payout.sent', true, btcPayout.id], ['payout.rejected', true, cross.id],
      ]);
      expect((hooks[2].data as { review_note: string }).review_note).toBe('address under review');
      expect((await admin('POST', '/admin/payouts/po_missing/approve')).statusCode).toBe(404);
    });
  });

  it('refuses a manual payout and its quote to an address not active yet with 409, and takes them once it is', async () => {
    // a merchant of its own: the payouts here are not the other tests'
    const other = await signupAccount(t.app);
    const o = await addMember(t, other.merchant.id, 'owner');
    const add = async (address: string) =>
      (await call(o, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address, password: o.password })).json().address;
    await add(ADDR.TRON);
    expect((await adjust({ merchant_id: other.merchant.id, livemode: true, token: 'USDT_TRC20', amount: '1000', note: 'opening balance' })).statusCode).toBe(201);
    // a second USDT_TRC20 address could redirect payouts: active 24 hours after it was set
    const next = await add(ADDR.TRON_2);
    const activeAt = new Date(next.active_at);
    expect(activeAt.getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    const message = `this payout address is active from ${activeAt.toISOString()}: a new or changed address can be paid out to 24 hours after it was set`;
    const res = await call(o, 'POST', '/merchant/payouts', { address_id: next.id, amount: '100' });
    expect([res.statusCode, res.json()]).toEqual([409, { error: message }]);
    const quote = await call(o, 'GET', `/merchant/payouts/quote?address_id=${next.id}&amount=100`);
    expect([quote.statusCode, quote.json()]).toEqual([409, { error: message }]);
    const held = (await call(o, 'GET', '/merchant/balances')).json().balances.find((b: { token: string }) => b.token === 'USDT_TRC20');
    expect(held.pending_payout).toBe('0');
    // a day later (moved back here) it is paid out to like any other
    await h.db().orm.update(payoutAddresses).set({ activeAt: new Date(Date.now() - 1000) }).where(eq(payoutAddresses.id, next.id));
    expect((await call(o, 'GET', `/merchant/payouts/quote?address_id=${next.id}`)).statusCode).toBe(200);
    expect((await call(o, 'POST', '/merchant/payouts', { address_id: next.id, amount: '100' })).statusCode).toBe(201);
  });

  it('never overdraws a balance with 20 payout requests at once', async () => {
    const other = await signupAccount(t.app);
    const fin = await addMember(t, other.merchant.id, 'finance');
    const addr = (await t.app.inject({ method: 'POST', url: '/merchant/payout-addresses', headers: { authorization: `Bearer ${await fin.token()}` }, payload: { token: 'USDT_TRC20', address: ADDR.TRON, password: fin.password } })).json().address;
    await adjust({ merchant_id: other.merchant.id, livemode: true, token: 'USDT_TRC20', amount: '105', note: 'funding' });
    const token = await fin.token();
    const results = await Promise.all(Array.from({ length: 20 }, () => t.app.inject({
      method: 'POST', url: '/merchant/payouts', headers: { authorization: `Bearer ${token}` }, payload: { address_id: addr.id, amount: '10' }, remoteAddress: randomIp(),
    })));
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(10);
    expect(codes.filter((c) => c === 400)).toHaveLength(10);
    // every refusal saw the balance after the ten holds: requests queued on the balance row's lock
    for (const r of results.filter((x) => x.statusCode === 400)) expect(r.json()).toEqual({ error: 'your USDT_TRC20 balance holds 5 USDT_TRC20' });
    const b = (await t.app.inject({ method: 'GET', url: '/merchant/balances', headers: { authorization: `Bearer ${token}` } })).json().balances[0];
    expect(b).toMatchObject({ available: '5', pending_payout: '100' });
  });

  it('lets exactly one of two conflicting moves of a payout win, with one event per move', async () => {
    const other = await signupAccount(t.app);
    const fin = await addMember(t, other.merchant.id, 'finance');
    const token = await fin.token();
    const as = (method: 'POST', url: string, payload?: unknown) => t.app.inject({ method, url, payload: payload as Record<string, unknown>, headers: { authorization: `Bearer ${token}` }, remoteAddress: randomIp() });
    const addr = (await t.app.inject({ method: 'POST', url: '/merchant/payout-addresses', headers: { authorization: `Bearer ${token}` }, payload: { token: 'USDT_TRC20', address: ADDR.TRON, password: fin.password } })).json().address;
    await adjust({ merchant_id: other.merchant.id, livemode: true, token: 'USDT_TRC20', amount: '200', note: 'funding' });
    const request = async () => (await as('POST', '/merchant/payouts', { address_id: addr.id, amount: '20' })).json().payout.id as string;
    const race = async (moves: (() => ReturnType<typeof admin>)[]) => {
      const codes = (await Promise.all(moves.map((m) => m()))).map((r) => [r.statusCode, r.json()] as const);
      expect(codes.filter(([c]) => c === 200)).toHaveLength(1);
      for (const [c, body] of codes.filter(([code]) => code !== 200)) expect([c, body]).toEqual([409, { error: 'payout is not in a state that allows this' }]);
    };
    const a = await request();
    await race([() => as('POST', `/merchant/payouts/${a}/cancel`), () => admin('POST', `/admin/payouts/${a}/approve`)]);
    const b = await request();
    await race([() => admin('POST', `/admin/payouts/${b}/approve`), () => admin('POST', `/admin/payouts/${b}/approve`)]);
    await race([() => admin('POST', `/admin/payouts/${b}/reject`, { note: 'no' }), () => admin('POST', `/admin/payouts/${b}/sent`, { tx_id: 'a'.repeat(64) })]);
    const c = await request();
    await race([() => admin('POST', `/admin/payouts/${c}/reject`, { note: 'x' }), () => admin('POST', `/admin/payouts/${c}/reject`, { note: 'y' })]);
    const raised = await h.db().orm.select({ type: events.type, data: events.data }).from(events)
      .where(and(eq(events.merchantId, other.merchant.id), inArray(events.type, ['payout.approved', 'payout.rejected', 'payout.sent'])));
    const seen = raised.map((e) => `${(e.data as { id: string }).id} ${e.type}`);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((s) => s.startsWith(b))).toHaveLength(2); // approved, then rejected or sent
    expect(seen.filter((s) => s.startsWith(c))).toEqual([`${c} payout.rejected`]);
  });

  describe('money edges', () => {
    // merchants of their own: the payouts and balances here are not the other tests'
    const funded = async (usdt: string) => {
      const acct2 = await signupAccount(t.app);
      const o = await addMember(t, acct2.merchant.id, 'owner');
      const a = (await call(o, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON, password: o.password })).json().address;
      expect((await adjust({ merchant_id: acct2.merchant.id, livemode: true, token: 'USDT_TRC20', amount: usdt, note: 'funding' })).statusCode).toBe(201);
      const bal = async () => (await call(o, 'GET', '/merchant/balances')).json().balances.find((b: { token: string }) => b.token === 'USDT_TRC20');
      return { id: acct2.merchant.id, owner: o, address: a as { id: string }, bal };
    };

    it('moves from every state only as spec 3 allows (cancel, approve, reject: requested; reject, sent: approved); the rest 409, nothing moved', async () => {
      const a = await funded('100');
      const ask = async () => (await call(a.owner, 'POST', '/merchant/payouts', { address_id: a.address.id, amount: '10' })).json().payout.id as string;
      const moves: Record<string, (id: string) => ReturnType<typeof admin>> = {
        cancel: (id) => call(a.owner, 'POST', `/merchant/payouts/${id}/cancel`),
        approve: (id) => admin('POST', `/admin/payouts/${id}/approve`),
        reject: (id) => admin('POST', `/admin/payouts/${id}/reject`, { note: 'checked' }),
        sent: (id) => admin('POST', `/admin/payouts/${id}/sent`, { tx_id: 'tx-matrix' }),
      };
      const reach: Record<string, string[]> = { requested: [], canceled: ['cancel'], approved: ['approve'], rejected: ['reject'], sent: ['approve', 'sent'] };
      const allowed: Record<string, string[]> = { requested: ['cancel', 'approve', 'reject'], approved: ['reject', 'sent'], canceled: [], rejected: [], sent: [] };
      for (const [state, path] of Object.entries(reach)) {
        for (const [verb, move] of Object.entries(moves)) {
          const id = await ask();
          for (const step of path) expect((await moves[step](id)).statusCode).toBe(200);
          const before = await a.bal();
          const res = await move(id);
          if (allowed[state].includes(verb)) {
            expect(res.statusCode, `${state} ${verb} ${res.body}`).toBe(200);
          } else {
            expect([res.statusCode, res.json(), state, verb]).toEqual([409, { error: 'payout is not in a state that allows this' }, state, verb]);
            expect(await a.bal()).toEqual(before);
          }
          // whatever is left open is given back, so the next payout has a balance to draw on
          const open = (await call(a.owner, 'GET', '/merchant/payouts?status=requested')).json().payouts.concat(
            (await call(a.owner, 'GET', '/merchant/payouts?status=approved')).json().payouts);
          for (const p of open) await moves.reject(p.id);
        }
      }
    });

    it('answers 404 to a member canceling another merchant\'s payout, which stays held', async () => {
      const a = await funded('50');
      const p = (await call(a.owner, 'POST', '/merchant/payouts', { address_id: a.address.id, amount: '20' })).json().payout;
      const res = await call(owner, 'POST', `/merchant/payouts/${p.id}/cancel`);
      expect([res.statusCode, res.json()]).toEqual([404, { error: 'not found' }]);
      expect((await admin('GET', '/admin/payouts?status=requested')).json().payouts.map((x: { id: string }) => x.id)).toContain(p.id);
      expect(await a.bal()).toMatchObject({ available: '30', pending_payout: '20' });
    });

    it('cancels a payout still waiting for review when its address is deleted (never sent to an address the merchant removed); an approved one goes on', async () => {
      const a = await funded('50');
      const waiting = (await call(a.owner, 'POST', '/merchant/payouts', { address_id: a.address.id, amount: '20' })).json().payout;
      const approved = (await call(a.owner, 'POST', '/merchant/payouts', { address_id: a.address.id, amount: '10' })).json().payout;
      expect((await admin('POST', `/admin/payouts/${approved.id}/approve`)).statusCode).toBe(200);
      expect((await call(a.owner, 'DELETE', `/merchant/payout-addresses/${a.address.id}`)).json()).toEqual({ message: 'address deleted' });
      const list = (await call(a.owner, 'GET', '/merchant/payouts')).json().payouts;
      expect(list.find((x: { id: string }) => x.id === waiting.id).status).toBe('canceled');
      expect(list.find((x: { id: string }) => x.id === approved.id).status).toBe('approved');
      expect(await a.bal()).toMatchObject({ available: '40', pending_payout: '10' });
      expect((await admin('POST', `/admin/payouts/${waiting.id}/approve`)).statusCode).toBe(409);
    });

    it('cancels a payout still waiting for review when its address is changed (never sent to the address the merchant replaced); an approved one goes on; a label or default change cancels nothing', async () => {
      const a = await funded('50');
      const waiting = (await call(a.owner, 'POST', '/merchant/payouts', { address_id: a.address.id, amount: '20' })).json().payout;
      const approved = (await call(a.owner, 'POST', '/merchant/payouts', { address_id: a.address.id, amount: '10' })).json().payout;
      expect(waiting).toMatchObject({ status: 'requested', address: ADDR.TRON });
      expect((await admin('POST', `/admin/payouts/${approved.id}/approve`)).statusCode).toBe(200);
      const statuses = async () => {
        const list = (await call(a.owner, 'GET', '/merchant/payouts')).json().payouts;
        return [waiting.id, approved.id].map((id) => list.find((x: { id: string }) => x.id === id).status);
      };
      // a new label, or the default moved away and back: the payout still goes where it was asked to
      expect((await call(a.owner, 'PATCH', `/merchant/payout-addresses/${a.address.id}`, { label: 'cold wallet' })).statusCode).toBe(200);
      const second = (await call(a.owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON_2, password: a.owner.password })).json().address;
      expect((await call(a.owner, 'PATCH', `/merchant/payout-addresses/${second.id}`, { default: true })).statusCode).toBe(200);
      expect((await call(a.owner, 'PATCH', `/merchant/payout-addresses/${a.address.id}`, { default: true })).statusCode).toBe(200);
      expect(await statuses()).toEqual(['requested', 'approved']);
      expect(await a.bal()).toMatchObject({ available: '20', pending_payout: '30' });

      const changed = await call(a.owner, 'PATCH', `/merchant/payout-addresses/${a.address.id}`, { address: ADDR.TRON_3, password: a.owner.password });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(await statuses()).toEqual(['canceled', 'approved']);
      expect(await a.bal()).toMatchObject({ available: '40', pending_payout: '10' });
      expect((await admin('POST', `/admin/payouts/${waiting.id}/approve`)).statusCode).toBe(409);
      const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, waiting.id), eq(auditEntries.action, 'payout.canceled')));
      expect(audit).toMatchObject({ merchantId: a.id, actor: { id: a.owner.userId }, note: 'its payout address was changed' });
      const told = await h.db().orm.select().from(events).where(and(eq(events.merchantId, a.id), eq(events.type, 'payout:update'))).orderBy(events.seq);
      expect(told.at(-1)!.data).toMatchObject({ id: waiting.id, status: 'canceled', address: ADDR.TRON });
      const [release] = (await call(a.owner, 'GET', '/merchant/ledger?token=USDT_TRC20&limit=1')).json().entries;
      expect(release).toMatchObject({ type: 'payout_release', amount: '20', reference: waiting.id });
    });

    it('cancels a payout still waiting for review when only its XRP destination tag is changed', async () => {
      const acct2 = await signupAccount(t.app);
      const o = await addMember(t, acct2.merchant.id, 'owner');
      const xrp = (await call(o, 'POST', '/merchant/payout-addresses', { token: 'XRP', address: ADDR.XRP, tag: 42, password: o.password })).json().address;
      expect((await adjust({ merchant_id: acct2.merchant.id, livemode: true, token: 'XRP', amount: '100', note: 'funding' })).statusCode).toBe(201);
      const p = await call(o, 'POST', '/merchant/payouts', { address_id: xrp.id, amount: '50' });
      expect(p.statusCode, p.body).toBe(201);
      expect(p.json().payout).toMatchObject({ status: 'requested', address: ADDR.XRP, tag: 42 });
      expect((await call(o, 'PATCH', `/merchant/payout-addresses/${xrp.id}`, { tag: 43, password: o.password })).statusCode).toBe(200);
      const [read] = (await call(o, 'GET', '/merchant/payouts')).json().payouts;
      expect(read).toMatchObject({ id: p.json().payout.id, status: 'canceled', tag: 42 });
      const bal = (await call(o, 'GET', '/merchant/balances')).json().balances.find((b: { token: string }) => b.token === 'XRP');
      expect(bal).toMatchObject({ available: '100', pending_payout: '0' });
    });

    // Two transactions at once need two connections: PostgreSQL only (PGlite runs one at a time).
    describe.runIf(h.kind === 'postgres')('a payout request and the deletion of its address at the same moment', () => {
      /** A transaction of its own on another connection, holding `lock` (a statement) until released. */
      const holding = async (lock: string, params: unknown[]) => {
        const client = new pg.Client({ connectionString: h.url()! });
        await client.connect();
        await client.query('begin');
        await client.query(lock, params);
        return { release: async () => { await client.query('commit'); await client.end(); } };
      };
      const blocked = (n: number) => untilLockWaiters(h.db(), n);
      const payoutsTo = async (a: { owner: Member; address: { id: string } }) =>
        (await call(a.owner, 'GET', '/merchant/payouts')).json().payouts.filter((x: { address_id: string }) => x.address_id === a.address.id);

      it('the request first: the deletion waits for it, then cancels the payout', async () => {
        const a = await funded('50');
        // the request stops at its balance, a third transaction holding it
        const balanceHeld = await holding(`select 1 from balances where merchant_id = $1 and livemode and token = 'USDT_TRC20' for update`, [a.id]);
        const request = call(a.owner, 'POST', '/merchant/payouts', { address_id: a.address.id, amount: '20' });
        await blocked(1);
        const removal = call(a.owner, 'DELETE', `/merchant/payout-addresses/${a.address.id}`);
        await new Promise((r) => setTimeout(r, 300));
        await balanceHeld.release();
        const [req, del] = await Promise.all([request, removal]);
        expect(del.json()).toEqual({ message: 'address deleted' });
        expect(req.statusCode, req.body).toBe(201);
        expect((await payoutsTo(a)).map((x: { status: string }) => x.status)).toEqual(['canceled']);
        expect(await a.bal()).toMatchObject({ available: '50', pending_payout: '0' });
      });

      it('the deletion first: the request waits for it, then answers that the address is unknown', async () => {
        const a = await funded('50');
        const earlier = (await call(a.owner, 'POST', '/merchant/payouts', { address_id: a.address.id, amount: '20' })).json().payout;
        // the deletion stops at canceling the earlier payout, a third transaction holding it
        const payoutHeld = await holding('select 1 from payouts where id = $1 for update', [earlier.id]);
        const removal = call(a.owner, 'DELETE', `/merchant/payout-addresses/${a.address.id}`);
        await blocked(1);
        const request = call(a.owner, 'POST', '/merchant/payouts', { address_id: a.address.id, amount: '20' });
        await new Promise((r) => setTimeout(r, 300));
        await payoutHeld.release();
        const [req, del] = await Promise.all([request, removal]);
        expect(del.json()).toEqual({ message: 'address deleted' });
        expect([req.statusCode, req.json()]).toEqual([400, { error: 'unknown payout address: give the id of one of your live payout addresses' }]);
        expect((await payoutsTo(a)).map((x: { status: string }) => x.status)).toEqual(['canceled']);
        expect(await a.bal()).toMatchObject({ available: '50', pending_payout: '0' });
      });
    });

    it('rejects an approved payout, its whole amount back in the balance with the reason on the release entry', async () => {
      const a = await funded('50');
      const p = (await call(a.owner, 'POST', '/merchant/payouts', { address_id: a.address.id, amount: '20' })).json().payout;
      expect((await admin('POST', `/admin/payouts/${p.id}/approve`)).statusCode).toBe(200);
      const rejected = await admin('POST', `/admin/payouts/${p.id}/reject`, { note: 'wallet frozen' });
      expect([rejected.statusCode, rejected.json().payout.status]).toEqual([200, 'rejected']);
      expect(await a.bal()).toMatchObject({ available: '50', pending_payout: '0' });
      // the whole amount in dollars both ways, not what would have been sent after the fee
      const [release, hold] = (await call(a.owner, 'GET', '/merchant/ledger?token=USDT_TRC20&limit=2')).json().entries;
      expect(release).toMatchObject({ type: 'payout_release', amount: '20', usd_amount: '20', reference: p.id, note: 'wallet frozen' });
      expect(hold).toMatchObject({ type: 'payout_hold', amount: '-20', usd_amount: '-20', reference: p.id });
    });

    it('refuses a payout whose network fee takes all of it, holding nothing', async () => {
      const a = await funded('10');
      const live = t.services.settlement.market.snapshot(true);
      // a $10 network fee on exactly $10: nothing would be sent
      const market = { ...live, USDT_TRC20: { ...live.USDT_TRC20, networkFeeUsd: dec(10) } };
      const [addr] = await h.db().orm.select().from(payoutAddresses).where(eq(payoutAddresses.id, a.address.id));
      const attempt = h.db().transaction((tx) => createPayout(tx, {
        merchantId: a.id, address: addr, fromToken: 'USDT_TRC20', amount: undefined, requestedBy: a.owner.userId, market, now: new Date(), ownAddresses: t.services.settlement.deps.ownAddresses,
      }));
      await expect(attempt).rejects.toThrow(amountBelowFee('USDT_TRC20', 10_000_000n));
      expect(await a.bal()).toMatchObject({ available: '10', pending_payout: '0' });
    });

    it('sends an approved USDT payout itself for its send_amount in the payout coin\'s units; rejects a requested one without calling anything back', async () => {
      const a = await funded('100');
      const b = (await call(a.owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_BEP20', address: ADDR.EVM, password: a.owner.password })).json().address;
      const sent: TransferRequest[] = [];
      const canceled: string[] = [];
      // a transfer already on its way: it cannot be called back
      t.services.settlement.useTransfers({
        send: async (_tx: Executor, req) => { sent.push(req); return `intent_${sent.length}`; },
        cancel: async (_tx: Executor, ref) => { canceled.push(ref); return false; },
      });
      try {
        const first = (await call(a.owner, 'POST', '/merchant/payouts', { address_id: b.id, from_token: 'USDT_TRC20', amount: '50' })).json().payout;
        expect(first).toMatchObject({ amount: '50', network_fee: '0.5', send_amount: '49.5' });
        expect((await admin('POST', `/admin/payouts/${first.id}/approve`)).statusCode).toBe(200);
        // 49.5 USDT_TRC20 (6 decimals) arrives as 49.5 USDT_BEP20 (18 decimals): the network fee stays with the service
        expect(sent).toEqual([{ chain: 'bsc', token: 'USDT_BEP20', to: ADDR.EVM, amount: 495n * 10n ** 17n, purpose: 'payout', reference: first.id }]);
        const late = await admin('POST', `/admin/payouts/${first.id}/reject`, { note: 'too late' });
        expect([late.statusCode, late.json()]).toEqual([409, { error: 'payout is being sent by the service' }]);
        const second = (await call(a.owner, 'POST', '/merchant/payouts', { address_id: b.id, from_token: 'USDT_TRC20', amount: '20' })).json().payout;
        const rejected = await admin('POST', `/admin/payouts/${second.id}/reject`, { note: 'not this one' });
        expect([rejected.statusCode, rejected.json().payout.status]).toEqual([200, 'rejected']);
        expect(canceled).toEqual([first.id]);
        expect(await a.bal()).toMatchObject({ available: '50', pending_payout: '50' });
      } finally {
        t.services.settlement.useTransfers(null);
      }
    });

    it('pays a USDT address from the USDT balance that holds the most when its own balance is empty, even one that held money before', async () => {
      const a = await funded('40');
      const b = (await call(a.owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_BEP20', address: ADDR.EVM, password: a.owner.password })).json().address;
      // a USDT_BEP20 balance row that exists but holds nothing
      for (const amount of ['5', '-5']) await adjust({ merchant_id: a.id, livemode: true, token: 'USDT_BEP20', amount, note: 'in and out' });
      const quote = (await call(a.owner, 'GET', `/merchant/payouts/quote?address_id=${b.id}&amount=15`)).json().quote;
      expect(quote).toMatchObject({ token: 'USDT_BEP20', from_token: 'USDT_TRC20', from_chain: 'tron', available: '40', send_amount: '14.5' });
      const res = await call(a.owner, 'POST', '/merchant/payouts', { address_id: b.id, amount: '15' });
      expect(res.statusCode).toBe(201);
      expect(res.json().payout).toMatchObject({ token: 'USDT_BEP20', from_token: 'USDT_TRC20', amount: '15', send_amount: '14.5' });
    });

    it('lets an adjustment take a balance to exactly zero, never below', async () => {
      const a = await funded('2.5');
      const below = await adjust({ merchant_id: a.id, livemode: true, token: 'USDT_TRC20', amount: '-2.500001', note: 'too much' });
      expect([below.statusCode, below.json()]).toEqual([400, { error: 'the adjustment would take the balance below zero' }]);
      const zero = await adjust({ merchant_id: a.id, livemode: true, token: 'USDT_TRC20', amount: '-2.5', note: 'closing balance' });
      expect(zero.statusCode).toBe(201);
      expect(zero.json().entry).toMatchObject({ amount: '-2.5', usd_amount: '-2.5' });
      expect(await a.bal()).toMatchObject({ available: '0', pending_payout: '0' });
    });
  });

  describe('statements', () => {
    it('lists the ledger newest first with total, limit and offset, replacing an out-of-range limit', async () => {
      const all = (await call(viewer, 'GET', '/merchant/ledger?limit=500')).json();
      expect(all.limit).toBe(500);
      expect(all.total).toBe(all.entries.length);
      const times = all.entries.map((e: { created_at: string }) => e.created_at);
      expect(times).toEqual([...times].sort().reverse());
      const page = (await call(viewer, 'GET', '/merchant/ledger?limit=501&offset=-3')).json();
      expect([page.limit, page.offset]).toEqual([50, 0]);
      const second = (await call(viewer, 'GET', '/merchant/ledger?limit=2&offset=1')).json();
      expect(second.entries.map((e: { id: string }) => e.id)).toEqual(all.entries.slice(1, 3).map((e: { id: string }) => e.id));
      expect((await call(viewer, 'GET', '/merchant/ledger?mode=test')).json()).toEqual({ entries: [], total: 0, limit: 50, offset: 0 });
    });

    it('streams the statement as RFC 4180 CSV, newest first', async () => {
      const note = 'refund, "partial"\nline two';
      await adjust({ merchant_id: merchantId, livemode: true, token: 'USDT_TRC20', amount: '1.5', note });
      const res = await call(viewer, 'GET', '/merchant/ledger.csv?token=USDT_TRC20');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      const [header, first] = res.body.split('\r\n');
      expect(header).toBe('id,created_at,type,token,chain,amount,usd_amount,reference,note');
      expect(first).toMatch(/^led_[0-9a-z]+,[^,]+,adjustment,USDT_TRC20,tron,1\.5,1\.5,adj_[0-9a-z]+,"refund, ""partial""\nline two"$/);
      const list = (await call(viewer, 'GET', '/merchant/ledger?token=USDT_TRC20&limit=500')).json();
      // one CSV record per entry (the quoted note holds a bare newline)
      expect(res.body.split('\r\n').filter((l) => l !== '')).toHaveLength(list.total + 1);
      expect(res.body.split('\r\n')[list.total]).toContain(list.entries.at(-1).id);
    });

    it('lists settlements with filters and answers 404 settlement not found', async () => {
      const p = payment(merchantId);
      const [s] = await t.services.settlement.settle(h.db(), input(p, [{ amount: 20_000_000n, usd: '20' }]));
      const list = (await call(viewer, 'GET', '/merchant/settlements?mode=test')).json();
      expect(list).toMatchObject({ total: 1, limit: 50, offset: 0 });
      expect(list.settlements[0]).toMatchObject({ id: s.id, mode: 'direct', status: 'completed', destination: ADDR.TRON });
      expect((await call(viewer, 'GET', '/merchant/settlements')).json().total).toBe(0);
      expect((await call(viewer, 'GET', '/merchant/settlements?mode=test&settlement=custodial')).json().total).toBe(0);
      expect((await call(viewer, 'GET', '/merchant/settlements?mode=test&status=pending')).json().total).toBe(0);
      expect((await call(viewer, 'GET', `/merchant/settlements?mode=test&payment_id=${p.id}&status=completed&settlement=direct`)).json().total).toBe(1);
      expect((await call(viewer, 'GET', `/merchant/settlements/${s.id}`)).json().settlement.id).toBe(s.id);
      const missing = await call(viewer, 'GET', '/merchant/settlements/stl_nope');
      expect([missing.statusCode, missing.json()]).toEqual([404, { error: 'settlement not found' }]);
      expect((await balance('USDT_TRC20', '?mode=test'))).toMatchObject({ available: '0' });
    });
  });
});
