// The settlement room's read routes and objects (spec 2 Settlement object, Balance and ledger,
// Payout address, Merchant payout object; 4.4 Balances, ledger, settlements; CONTRACT.md operator
// API): one merchant's money never shows in another's answers, the objects have exactly their fields
// (optional ones absent, never null; amounts in their own coin's decimals), lists come newest first,
// and the statement keeps live and test apart.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount } from '../harness/accounts.ts';
import { ADDR, addMember, expectLedgerHolds, input, payment, type Member } from '../harness/settlement.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { settlements } from '../../src/settlement/index.ts';

const ADMIN = { authorization: 'Bearer test-admin-token' };

describeEachDb('settlement reads', (h) => {
  let t: TestApp;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock(new Date('2026-04-01T09:00:00Z'));
    t = await startTestApp(h.db(), { clock });
  });
  afterAll(async () => { await t.close(); });
  afterEach(async () => { await expectLedgerHolds(h.db()); });

  // each call a second later, so rows made one after another have distinct times
  const call = async (m: Member, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    (clock.advance(1000), t.app.inject({ method, url, payload: payload as Record<string, unknown>, headers: { authorization: `Bearer ${await m.token()}` }, remoteAddress: randomIp() }));
  const admin = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    (clock.advance(1000), t.app.inject({ method, url, payload: payload as Record<string, unknown>, headers: ADMIN, remoteAddress: randomIp() }));
  const newMerchant = async (): Promise<{ id: string; owner: Member }> => {
    const acct = await signupAccount(t.app);
    return { id: acct.merchant.id, owner: await addMember(t, acct.merchant.id, 'owner') };
  };
  const addAddress = async (m: { owner: Member }, body: Record<string, unknown>, mode = '') => {
    const res = await call(m.owner, 'POST', `/merchant/payout-addresses${mode}`, { ...body, password: m.owner.password });
    expect(res.statusCode).toBe(201);
    return res.json().address;
  };
  const settle = (i: ReturnType<typeof input>) => (clock.advance(1000), t.services.settlement.settle(h.db(), i));

  it('never shows one merchant\'s settlements, ledger, statement, balances, payouts or addresses to another', async () => {
    const a = await newMerchant();
    await addAddress(a, { token: 'USDT_TRC20', address: ADDR.TRON }, '?mode=test');
    const addr = await addAddress(a, { token: 'USDT_TRC20', address: ADDR.TRON });
    const [s] = await settle(input(payment(a.id), [{ amount: 20_000_000n, usd: '20' }]));
    await settle(input(payment(a.id, { token: 'BTC', rate_locked: '60000', settlement: 'custodial' }), [{ amount: 1_000_000n, usd: '600' }]));
    expect((await admin('POST', '/admin/ledger/adjustments', { merchant_id: a.id, livemode: true, token: 'USDT_TRC20', amount: '100', note: 'funding' })).statusCode).toBe(201);
    expect((await call(a.owner, 'POST', '/merchant/payouts', { address_id: addr.id, amount: '30' })).statusCode).toBe(201);
    // what the first merchant sees of its own
    expect((await call(a.owner, 'GET', `/merchant/settlements/${s.id}`)).statusCode).toBe(200);
    expect((await call(a.owner, 'GET', '/merchant/settlements?mode=test')).json().total).toBe(2);
    expect((await call(a.owner, 'GET', '/merchant/ledger')).json().total).toBe(2);
    expect((await call(a.owner, 'GET', '/merchant/payouts')).json().total).toBe(1);

    const b = await newMerchant();
    const viewer = await addMember(t, b.id, 'viewer');
    for (const m of [b.owner, viewer]) {
      const one = await call(m, 'GET', `/merchant/settlements/${s.id}`);
      expect([one.statusCode, one.json()]).toEqual([404, { error: 'settlement not found' }]);
      for (const mode of ['', '?mode=test']) {
        expect((await call(m, 'GET', `/merchant/settlements${mode}`)).json()).toEqual({ settlements: [], total: 0, limit: 50, offset: 0 });
        expect((await call(m, 'GET', `/merchant/ledger${mode}`)).json()).toEqual({ entries: [], total: 0, limit: 50, offset: 0 });
        expect((await call(m, 'GET', `/merchant/ledger.csv${mode}`)).body).toBe('id,created_at,type,token,chain,amount,usd_amount,reference,note\r\n');
        expect((await call(m, 'GET', `/merchant/balances${mode}`)).json()).toEqual({ balances: [] });
        expect((await call(m, 'GET', `/merchant/payout-addresses${mode}`)).json()).toEqual({ addresses: [] });
      }
      expect((await call(m, 'GET', '/merchant/payouts')).json()).toEqual({ payouts: [], total: 0, limit: 50, offset: 0 });
    }
  });

  it('answers a settlement with exactly its fields: amounts in the coin, dollars to the cent, absent optional fields, completed_at only once completed', async () => {
    const m = await newMerchant();
    await addAddress(m, { token: 'XRP', address: ADDR.XRP, tag: 77 }, '?mode=test');
    const p = payment(m.id, { token: 'XRP', rate_locked: '0.6' });
    const [s] = await settle(input(p, [{ amount: 100_000_000n, usd: '60', tx: 'tx_xrp_paper' }], clock.now()));
    const at = clock.now().toISOString();
    // 1% service fee, the $0.50 network fee at $0.60 rounded up to the drop, on paper to the test address
    expect((await call(m.owner, 'GET', `/merchant/settlements/${s.id}`)).json()).toEqual({
      settlement: {
        id: s.id, payment_id: p.id, deposit_tx: 'tx_xrp_paper', livemode: false, mode: 'direct', token: 'XRP', chain: 'xrp',
        amount: '100', service_fee: '1', network_fee: '0.833334', conversion_fee: '0', net: '98.166666',
        usd_value: '60', usd_rate: '0.6', service_fee_usd: '0.6', network_fee_usd: '0.5', conversion_fee_usd: '0', net_usd: '58.9',
        destination: ADDR.XRP, destination_tag: 77, status: 'completed', created_at: at, completed_at: at,
      },
    });

    // live, waiting for the transfer service: pending with its note, and no completed_at, tx_id or awaits_address
    await addAddress(m, { token: 'XRP', address: ADDR.XRP, tag: 78 });
    const [w] = await settle(input(payment(m.id, { livemode: true, token: 'XRP', rate_locked: '0.6' }), [{ amount: 10_000_000n, usd: '6' }], clock.now()));
    const pending = (await call(m.owner, 'GET', `/merchant/settlements/${w.id}`)).json().settlement;
    expect(pending).toMatchObject({ livemode: true, status: 'pending', note: 'waiting for the chain transfer service', destination_tag: 78, amount: '10' });
    for (const key of ['completed_at', 'tx_id', 'awaits_address', 'conversion', 'store_id', 'deposit_txs']) expect(pending, key).not.toHaveProperty(key);
  });

  it('shows a conversion\'s amount_in in the coin given and amount_out in the coin bought', async () => {
    const m = await newMerchant();
    await addAddress(m, { token: 'USDT_ERC20', address: ADDR.EVM });
    const [s] = await settle(input(payment(m.id, { livemode: true, token: 'ETH', rate_locked: '3000' }), [{ amount: 10n ** 18n, usd: '3000' }]));
    const c = s.conversion as { amount_in: string; amount_out: string };
    // ETH has 18 decimals, USDT_ERC20 6
    expect([c.amount_in, c.amount_out]).toEqual(['984718320000000000', '2954154960']);
    const json = (await call(m.owner, 'GET', `/merchant/settlements/${s.id}`)).json().settlement;
    expect(json.conversion).toEqual({ via: 'swap', from: 'ETH', amount_in: '0.98471832', to: 'USDT_ERC20', amount_out: '2954.15496', status: 'pending' });
    expect(json).toMatchObject({ token: 'ETH', amount: '1' });
  });

  it('answers payout addresses and payouts with exactly their fields, the review times as they happen', async () => {
    const m = await newMerchant();
    const created = clock.now();
    const addr = await addAddress(m, { token: 'XRP', address: ADDR.XRP, tag: 88, label: 'cold wallet' });
    const addedAt = new Date(created.getTime() + 1000).toISOString();
    const expectedAddr = {
      id: addr.id, merchant_id: m.id, livemode: true, token: 'XRP', chain: 'xrp', address: ADDR.XRP, tag: 88, label: 'cold wallet',
      default: true, active_at: addedAt, created_by: m.owner.userId, created_at: addedAt,
    };
    expect(addr).toEqual(expectedAddr);
    expect((await call(m.owner, 'GET', '/merchant/payout-addresses')).json()).toEqual({ addresses: [expectedAddr] });
    expect((await call(m.owner, 'GET', '/merchant/payout-addresses?mode=test')).json()).toEqual({ addresses: [] });

    expect((await admin('POST', '/admin/ledger/adjustments', { merchant_id: m.id, livemode: true, token: 'XRP', amount: '100', note: 'funding' })).statusCode).toBe(201);
    const req = await call(m.owner, 'POST', '/merchant/payouts', { address_id: addr.id, amount: '50' });
    expect(req.statusCode).toBe(201);
    const requestedAt = clock.now().toISOString();
    const base = {
      id: req.json().payout.id, merchant_id: m.id, livemode: true, token: 'XRP', chain: 'xrp', from_token: 'XRP', from_chain: 'xrp',
      // the $0.50 network fee at $0.60 is 0.833334 XRP (rounded up to the drop)
      amount: '50', network_fee: '0.833334', send_amount: '49.166666', amount_usd: '30', network_fee_usd: '0.5', send_amount_usd: '29.5',
      usd_rate: '0.6', address_id: addr.id, address: ADDR.XRP, tag: 88, requested_by: m.owner.userId, created_at: requestedAt,
    };
    expect(req.json().payout).toEqual({ ...base, status: 'requested', updated_at: requestedAt });

    const approved = await admin('POST', `/admin/payouts/${base.id}/approve`);
    const approvedAt = clock.now().toISOString();
    expect(approved.json().payout).toEqual({ ...base, status: 'approved', updated_at: approvedAt, approved_at: approvedAt });
    const sent = await admin('POST', `/admin/payouts/${base.id}/sent`, { tx_id: 'XRPTX1' });
    const sentAt = clock.now().toISOString();
    const final = { ...base, status: 'sent', tx_id: 'XRPTX1', updated_at: sentAt, approved_at: approvedAt, sent_at: sentAt };
    expect(sent.json().payout).toEqual(final);
    expect((await call(m.owner, 'GET', '/merchant/payouts')).json()).toEqual({ payouts: [final], total: 1, limit: 50, offset: 0 });
    expect((await call(m.owner, 'GET', '/merchant/balances')).json()).toEqual({ balances: [{ token: 'XRP', chain: 'xrp', available: '50', pending_payout: '0' }] });
    // every move in the merchant's audit log, the operator's as admin, each with the payout as it became
    const audit = (await call(m.owner, 'GET', `/merchant/audit?subject=${base.id}`)).json().entries as { action: string; actor: { kind: string; id?: string }; after: unknown }[];
    expect(audit.map((e) => [e.action, e.actor.kind, e.actor.id])).toEqual([
      ['payout.sent', 'admin', 'admin'], ['payout.approved', 'admin', 'admin'], ['payout.requested', 'merchant', m.owner.userId],
    ]);
    expect(audit[0].after).toEqual(final);

    // a canceled and a rejected payout carry the time of that move
    const canceled = (await call(m.owner, 'POST', '/merchant/payouts', { address_id: addr.id, amount: '20' })).json().payout;
    const c = await call(m.owner, 'POST', `/merchant/payouts/${canceled.id}/cancel`);
    expect(c.json().payout).toMatchObject({ status: 'canceled', canceled_at: clock.now().toISOString(), updated_at: clock.now().toISOString() });
    expect(c.json().payout).not.toHaveProperty('rejected_at');
    const rejected = (await call(m.owner, 'POST', '/merchant/payouts', { address_id: addr.id, amount: '20' })).json().payout;
    const r = await admin('POST', `/admin/payouts/${rejected.id}/reject`, { note: ' not today ' });
    expect(r.json().payout).toMatchObject({ status: 'rejected', review_note: 'not today', rejected_at: clock.now().toISOString() });
    expect(r.json().payout).not.toHaveProperty('canceled_at');
    expect((await call(m.owner, 'GET', `/merchant/audit?subject=${rejected.id}`)).json().entries.map((e: { action: string; actor: { kind: string } }) => [e.action, e.actor.kind]))
      .toEqual([['payout.rejected', 'admin'], ['payout.requested', 'merchant']]);
  });

  it('lists settlements newest first, a page at a time, and by payment', async () => {
    const m = await newMerchant();
    const p1 = payment(m.id);
    const [s1] = await settle(input(p1, [{ amount: 20_000_000n, usd: '20' }]));
    const [s2] = await settle(input(payment(m.id), [{ amount: 30_000_000n, usd: '30' }]));
    const [s3] = await settle(input(payment(m.id), [{ amount: 40_000_000n, usd: '40' }]));
    const ids = async (q: string) => {
      const res = (await call(m.owner, 'GET', `/merchant/settlements?mode=test${q}`)).json();
      return [res.total, res.settlements.map((x: { id: string }) => x.id)];
    };
    expect(await ids('')).toEqual([3, [s3.id, s2.id, s1.id]]);
    expect(await ids('&limit=1&offset=1')).toEqual([3, [s2.id]]);
    expect(await ids(`&payment_id=${p1.id}`)).toEqual([1, [s1.id]]);
    // a limit out of 1 to 200 is replaced by the default
    const limits = async (q: string) => (await call(m.owner, 'GET', `/merchant/settlements?mode=test${q}`)).json().limit;
    expect([await limits('&limit=200'), await limits('&limit=201'), await limits('&limit=0')]).toEqual([200, 50, 50]);
  });

  it('refuses an unknown or repeated settlement filter rather than listing every settlement as if none was given', async () => {
    const m = await newMerchant();
    await settle(input(payment(m.id), [{ amount: 20_000_000n, usd: '20' }]));
    const res = async (q: string) => { const r = await call(m.owner, 'GET', `/merchant/settlements?mode=test${q}`); return [r.statusCode, r.json()]; };
    // a typo (`complete`) listed the failed and held settlements too, as if they had completed
    expect(await res('&status=complete')).toEqual([400, { error: 'status must be one of pending, completed, held, failed' }]);
    expect(await res('&status=pending&status=failed')).toEqual([400, { error: 'status must be one of pending, completed, held, failed' }]);
    expect(await res('&settlement=sideways')).toEqual([400, { error: 'settlement must be one of direct, custodial' }]);
    expect(await res('&payment_id=a&payment_id=b')).toEqual([400, { error: 'payment_id must be given once' }]);
    // empty is no filter; a known value still filters
    expect((await res('&status=&settlement='))[1].total).toBe(1);
    expect((await res('&status=failed'))[1].total).toBe(0);
  });

  it('lets the operator list settlements of one status across merchants, and refuses an unknown status', async () => {
    const m = await newMerchant();
    const [held] = await settle(input(payment(m.id), [{ amount: 500_000n, usd: '0.5' }]));
    const [done] = await settle(input(payment(m.id), [{ amount: 20_000_000n, usd: '20' }]));
    expect([held.status, done.status]).toEqual(['held', 'completed']);
    const list = async (status: string) => (await admin('GET', `/admin/settlements?status=${status}`)).json().settlements as { id: string; status: string }[];
    const heldList = await list('held');
    expect(heldList.map((x) => x.id)).toContain(held.id);
    expect(new Set(heldList.map((x) => x.status))).toEqual(new Set(['held']));
    // newest first
    const [newer] = await settle(input(payment(m.id), [{ amount: 400_000n, usd: '0.4' }]));
    expect((await list('held')).map((x) => x.id).slice(0, 2)).toEqual([newer.id, held.id]);
    const doneList = await list('completed');
    expect(doneList.map((x) => x.id)).toContain(done.id);
    expect(doneList.map((x) => x.id)).not.toContain(held.id);
    const bad = await admin('GET', '/admin/settlements?status=lost');
    expect([bad.statusCode, bad.json()]).toEqual([400, { error: 'status must be one of pending, completed, held, failed' }]);
    const [row] = await h.db().orm.select().from(settlements).where(eq(settlements.id, held.id));
    expect(row.status).toBe('held');
  });

  it('refuses an unknown status in the operator\'s payout list (CONTRACT.md: /admin answers 400 to invalid values)', async () => {
    const bad = await admin('GET', '/admin/payouts?status=lost');
    expect([bad.statusCode, bad.json()]).toEqual([400, { error: 'status must be one of requested, canceled, approved, rejected, sent' }]);
    expect((await admin('GET', '/admin/payouts?status=requested')).statusCode).toBe(200);
    expect((await admin('GET', '/admin/payouts')).statusCode).toBe(200);
  });

  it('pages the operator\'s payout and settlement lists (they stopped at the newest 200, the rest out of reach)', async () => {
    const m = await newMerchant();
    for (let i = 0; i < 2; i++) {
      await settle(input(payment(m.id, { token: 'BTC', rate_locked: '60000', settlement: 'custodial' }), [{ amount: 1_000_000n, usd: '600' }]));
    }
    expect((await admin('POST', '/admin/ledger/adjustments', { merchant_id: m.id, livemode: true, token: 'USDT_TRC20', amount: '50', note: 'n' })).statusCode).toBe(201);
    const address = await addAddress(m, { token: 'USDT_TRC20', address: ADDR.TRON });
    for (let i = 0; i < 2; i++) expect((await call(m.owner, 'POST', '/merchant/payouts', { address_id: address.id, amount: '20' })).statusCode).toBe(201);
    for (const path of ['/admin/payouts', '/admin/settlements']) {
      const key = path.slice('/admin/'.length);
      const all = (await admin('GET', `${path}?limit=200`)).json();
      expect(all.total).toBeGreaterThanOrEqual(2);
      const ids = all[key].map((x: { id: string }) => x.id);
      const first = (await admin('GET', `${path}?limit=1`)).json();
      expect([first[key].map((x: { id: string }) => x.id), first.limit, first.offset, first.total]).toEqual([[ids[0]], 1, 0, all.total]);
      const second = (await admin('GET', `${path}?limit=1&offset=1`)).json();
      expect([second[key].map((x: { id: string }) => x.id), second.offset]).toEqual([[ids[1]], 1]);
      // without paging, the newest 200 as before
      expect((await admin('GET', path)).json().limit).toBe(200);
    }
  });

  it('streams the live and the test statement apart, each as an attachment named for its mode', async () => {
    const m = await newMerchant();
    await settle(input(payment(m.id, { token: 'BTC', rate_locked: '60000', settlement: 'custodial' }), [{ amount: 1_000_000n, usd: '600' }]));
    const adj = await admin('POST', '/admin/ledger/adjustments', { merchant_id: m.id, livemode: true, token: 'BTC', amount: '0.5', note: 'live only' });
    const live = await call(m.owner, 'GET', '/merchant/ledger.csv');
    expect(live.headers['content-disposition']).toBe('attachment; filename="ledger-live.csv"');
    const liveLines = live.body.split('\r\n').filter((l) => l !== '').slice(1);
    expect(liveLines).toHaveLength(1);
    expect(liveLines[0]).toMatch(new RegExp(`^${adj.json().entry.id},[^,]+,adjustment,BTC,bitcoin,0\\.5,30000,adj_[0-9a-z]+,live only$`));
    const test = await call(m.owner, 'GET', '/merchant/ledger.csv?mode=test');
    expect(test.headers['content-disposition']).toBe('attachment; filename="ledger-test.csv"');
    const testLines = test.body.split('\r\n').filter((l) => l !== '').slice(1);
    // the deposit's credit, its service fee and its network fee; the live adjustment is not among them
    expect(testLines.map((l) => l.split(',')[2]).sort()).toEqual(['fee', 'network_fee', 'payment_credit']);
    expect(testLines.find((l) => l.split(',')[2] === 'payment_credit')).toMatch(/,payment_credit,BTC,bitcoin,0\.01,600,pay_/);
  });

  it('never lets a spreadsheet run a statement note as a formula, yet keeps negative amounts numbers', async () => {
    const m = await newMerchant();
    // operator notes (adjustments, payout rejections) and service notes reach the statement verbatim
    for (const note of ['=HYPERLINK("http://x","y")', '+1+2', '@SUM(1)', '-1+2', 'plain']) {
      expect((await admin('POST', '/admin/ledger/adjustments', { merchant_id: m.id, livemode: true, token: 'TRX', amount: '1', note })).statusCode).toBe(201);
    }
    expect((await admin('POST', '/admin/ledger/adjustments', { merchant_id: m.id, livemode: true, token: 'TRX', amount: '-2.5', note: 'back' })).statusCode).toBe(201);
    const lines = (await call(m.owner, 'GET', '/merchant/ledger.csv')).body.split('\r\n').filter((l) => l !== '').slice(1);
    expect(lines.map((l) => l.slice(l.indexOf(',adj_')).replace(/^,adj_[0-9a-z]+,/, ''))).toEqual(
      ['back', 'plain', "'-1+2", "'@SUM(1)", "'+1+2", '"\'=HYPERLINK(""http://x"",""y"")"']);
    expect(lines[0]).toMatch(/,adjustment,TRX,tron,-2\.5,-?[0-9.]+,adj_/);
  });

  it('filters the ledger and the statement by token', async () => {
    const m = await newMerchant();
    for (const [token, amount] of [['TRX', '10'], ['BTC', '0.01'], ['TRX', '-2.5']]) {
      expect((await admin('POST', '/admin/ledger/adjustments', { merchant_id: m.id, livemode: true, token, amount, note: 'n' })).statusCode).toBe(201);
    }
    const page = (await call(m.owner, 'GET', '/merchant/ledger?token=TRX')).json();
    expect([page.total, page.entries.map((e: { token: string; amount: string }) => `${e.token} ${e.amount}`)]).toEqual([2, ['TRX -2.5', 'TRX 10']]);
    const csv = (await call(m.owner, 'GET', '/merchant/ledger.csv?token=BTC')).body.split('\r\n').filter((l) => l !== '').slice(1);
    expect(csv.map((l) => l.split(',').slice(3, 7).join(' '))).toEqual(['BTC bitcoin 0.01 600']);
    expect((await call(m.owner, 'GET', '/merchant/ledger')).json().total).toBe(3);
    // An empty filter is no filter; a coin the gateway does not know is an error, not "every coin".
    expect((await call(m.owner, 'GET', '/merchant/ledger?token=')).json().total).toBe(3);
    for (const url of ['/merchant/ledger?token=FOO', '/merchant/ledger.csv?token=FOO']) {
      const res = await call(m.owner, 'GET', url);
      expect([res.statusCode, res.json()]).toEqual([400, { error: 'unsupported token: FOO' }]);
    }
  });

  it('orders entries written together by when they were written: newest first in the ledger and the statement, in order in a payment\'s trail', async () => {
    const m = await newMerchant();
    await addAddress(m, { token: 'USDT_TRC20', address: ADDR.TRON }, '?mode=test');
    const p = payment(m.id);
    await settle(input(p, [{ amount: 20_000_000n, usd: '20' }]));
    // one settlement writes its entries at one time
    const trail = await t.services.settlement.trailLedger(p.id) as { id: string; type: string; created_at: string }[];
    expect(trail.map((e) => e.type)).toEqual(['payment_credit', 'fee', 'network_fee', 'settlement']);
    expect(new Set(trail.map((e) => e.created_at)).size).toBe(1);
    const newestFirst = trail.map((e) => e.id).reverse();
    expect((await call(m.owner, 'GET', '/merchant/ledger?mode=test')).json().entries.map((e: { id: string }) => e.id)).toEqual(newestFirst);
    const csv = (await call(m.owner, 'GET', '/merchant/ledger.csv?mode=test')).body.split('\r\n').filter((l) => l !== '').slice(1);
    expect(csv.map((l) => l.split(',')[0])).toEqual(newestFirst);
  });

  it('filters payouts by the payout coin, not the balance paying it', async () => {
    const m = await newMerchant();
    const bep = await addAddress(m, { token: 'USDT_BEP20', address: ADDR.EVM });
    const trc = await addAddress(m, { token: 'USDT_TRC20', address: ADDR.TRON });
    expect((await admin('POST', '/admin/ledger/adjustments', { merchant_id: m.id, livemode: true, token: 'USDT_TRC20', amount: '100', note: 'funding' })).statusCode).toBe(201);
    const cross = (await call(m.owner, 'POST', '/merchant/payouts', { address_id: bep.id, from_token: 'USDT_TRC20', amount: '30' })).json().payout;
    const own = (await call(m.owner, 'POST', '/merchant/payouts', { address_id: trc.id, amount: '20' })).json().payout;
    expect([cross.token, cross.from_token, own.token]).toEqual(['USDT_BEP20', 'USDT_TRC20', 'USDT_TRC20']);
    const ids = async (q: string) => (await call(m.owner, 'GET', `/merchant/payouts${q}`)).json().payouts.map((p: { id: string }) => p.id);
    expect(await ids('?token=USDT_BEP20')).toEqual([cross.id]);
    expect(await ids('?token=USDT_TRC20')).toEqual([own.id]);
    expect(await ids('')).toEqual([own.id, cross.id]);
  });
});
