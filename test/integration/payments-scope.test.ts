// Who sees which payment (storefront keys, modes), live mode's node rule (CONTRACT.md) and
// `simulate` at creation.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signupAccount, tokenHeader, uid, type Account } from '../harness/accounts.ts';
import { ADDR } from '../harness/settlement.ts';
import { createPayment, type Json } from '../harness/payments.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { merchants, stores } from '../../src/accounts/index.ts';
import { insertApiKey } from '../../src/accounts/api-keys.ts';

describeEachDb('payments scope', (h) => {
  let t: TestApp;
  let withNode: TestApp;
  let acct: Account;
  let storeKey: string;
  let otherStoreKey: string;
  let readKey: string;
  let storeId: string;
  const clock = new ManualClock(new Date());
  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock });
    withNode = await startTestApp(h.db(), { clock, env: { ETHEREUM_RPC_URL: 'http://127.0.0.1:8545' } });
    acct = await signupAccount(t.app);
    const db = h.db().orm;
    const now = clock.now();
    storeId = `sto_${uid()}`;
    const other = `sto_${uid()}`;
    await db.insert(stores).values([{ id: storeId, merchantId: acct.merchant.id, name: 'A', createdAt: now, updatedAt: now }, { id: other, merchantId: acct.merchant.id, name: 'B', createdAt: now, updatedAt: now }]);
    storeKey = (await insertApiKey(db, { merchantId: acct.merchant.id, livemode: false, storeId, label: 's', access: 'full', createdBy: null, at: now })).secret;
    otherStoreKey = (await insertApiKey(db, { merchantId: acct.merchant.id, livemode: false, storeId: other, label: 's2', access: 'full', createdBy: null, at: now })).secret;
    readKey = (await insertApiKey(db, { merchantId: acct.merchant.id, livemode: false, label: 'r', access: 'read', createdBy: null, at: now })).secret;
    await db.update(merchants).set({ liveEnabled: true }).where(eq(merchants.id, acct.merchant.id));
  });
  afterAll(async () => { await withNode.close(); await t.close(); });
  beforeEach(() => { clock.advance(1100); });

  const inject = (opts: InjectOptions, app = t.app) => app.inject(opts);

  it('a storefront key sets store_id, sees only its store, and keeps its own order-id space', async () => {
    const order = `o-${uid()}`;
    const s = await createPayment(t.app, storeKey, { order_id: order });
    expect(s.store_id).toBe(storeId);
    const account = await createPayment(t.app, acct.testKey, { order_id: order });
    expect(account.id).not.toBe(s.id);
    expect(account.store_id).toBeUndefined();
    const o = await createPayment(t.app, otherStoreKey, { order_id: order });
    expect(o.id).not.toBe(s.id);
    const another = await inject({ method: 'GET', url: `/v1/payments/${s.id}`, headers: keyHeader(otherStoreKey) });
    expect([another.statusCode, another.json()]).toEqual([404, { error: 'payment not found' }]);
    const listed = (await inject({ method: 'GET', url: `/v1/payments?store_id=${'x'}&limit=200`, headers: keyHeader(storeKey) })).json();
    expect(listed.payments.length).toBeGreaterThan(0);
    expect(listed.payments.every((p: Json) => p.store_id === storeId)).toBe(true);
    const filtered = (await inject({ method: 'GET', url: `/v1/payments?store_id=${storeId}&limit=200`, headers: keyHeader(acct.testKey) })).json();
    expect(filtered.payments.map((p: Json) => p.id)).toEqual([s.id]);
  });

  it('answers 404 `payment not found` to a key of another store or mode on every /v1 payment route, and changes nothing', async () => {
    const own = await createPayment(t.app, storeKey, { token: undefined });
    const chosen = await createPayment(t.app, storeKey);
    clock.advance(1100);
    for (const key of [otherStoreKey, acct.liveKey]) {
      const cases: InjectOptions[] = [
        { method: 'GET', url: `/v1/payments/${own.id}` },
        { method: 'POST', url: `/v1/payments/${own.id}/token`, payload: { token: 'ETH' } },
        { method: 'POST', url: `/v1/payments/${chosen.id}/simulate`, payload: { outcome: 'confirmed' } },
      ];
      for (const c of cases) {
        const res = await inject({ ...c, headers: keyHeader(key) });
        expect([res.statusCode, res.json()], `${c.method} ${c.url}`).toEqual([404, { error: 'payment not found' }]);
      }
    }
    const [a, b] = await Promise.all([own.id, chosen.id].map(async (id) => (await inject({ method: 'GET', url: `/v1/payments/${id}`, headers: keyHeader(storeKey) })).json()));
    expect(a).toMatchObject({ token: '', deposit_address: '' });
    expect(b).not.toHaveProperty('simulation');
  });

  it('a read-only key reads but cannot create', async () => {
    expect((await inject({ method: 'GET', url: '/v1/payments', headers: keyHeader(readKey) })).statusCode).toBe(200);
    const res = await inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(readKey), payload: { order_id: 'r', amount_usd: 10, token: 'ETH' } });
    expect([res.statusCode, res.json()]).toEqual([403, { error: 'this api key is read-only: it can only read (GET)' }]);
  });

  it('a read-only key can neither choose a payment\'s coin nor simulate it (spec 5: anything but the four GETs is 403)', async () => {
    const open = await createPayment(t.app, acct.testKey, { token: undefined });
    const coin = await inject({ method: 'POST', url: `/v1/payments/${open.id}/token`, headers: keyHeader(readKey), payload: { token: 'ETH' } });
    expect([coin.statusCode, coin.json()]).toEqual([403, { error: 'this api key is read-only: it can only read (GET)' }]);
    const chosen = await createPayment(t.app, acct.testKey);
    const sim = await inject({ method: 'POST', url: `/v1/payments/${chosen.id}/simulate`, headers: keyHeader(readKey), payload: { outcome: 'confirmed' } });
    expect([sim.statusCode, sim.json()]).toEqual([403, { error: 'this api key is read-only: it can only read (GET)' }]);
    // nothing changed: still no coin, and no simulation
    const [a, b] = await Promise.all([open.id, chosen.id].map(async (id) => (await inject({ method: 'GET', url: `/v1/payments/${id}`, headers: keyHeader(readKey) })).json()));
    expect(a).toMatchObject({ token: '', deposit_address: '', status: 'pending' });
    expect(b).not.toHaveProperty('simulation');
  });

  it('live: a coin with no node is refused and left out of live lists; test never needs one', async () => {
    const res = await inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(acct.liveKey), payload: { order_id: `l-${uid()}`, amount_usd: '25', token: 'ETH' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'ETH cannot be paid in live mode right now: no ethereum node is configured' });
    expect((await inject({ method: 'GET', url: '/v1/tokens', headers: keyHeader(acct.liveKey) })).json().tokens).toEqual([]);
    // no coin named and none of the enabled ones has a node: nothing to offer
    const none = await inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(acct.liveKey), payload: { order_id: `l-${uid()}`, amount_usd: '25' } });
    expect([none.statusCode, none.json()]).toEqual([400, { error: 'no coin is available for this payment' }]);
    const live = await inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(acct.liveKey), payload: { order_id: `l-${uid()}`, amount_usd: '25', token: 'ETH' } }, withNode.app);
    expect(live.statusCode).toBe(201);
    expect(live.json()).toMatchObject({ livemode: true, token: 'ETH' });
    const listed = (await inject({ method: 'GET', url: '/v1/tokens', headers: keyHeader(acct.liveKey) }, withNode.app)).json().tokens;
    expect(listed.map((x: Json) => x.chain)).toEqual(['ethereum', 'ethereum', 'ethereum']);
    const bare = (await inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(acct.liveKey), payload: { order_id: `l-${uid()}`, amount_usd: '25' } }, withNode.app)).json();
    expect(bare.token_options.map((x: Json) => x.token)).toEqual(['ETH', 'USDT_ERC20', 'USDC_ERC20']);
    // the test payment of the same merchant is unaffected
    expect((await inject({ method: 'GET', url: `/v1/payments/${live.json().id}`, headers: keyHeader(acct.testKey) })).statusCode).toBe(404);
    clock.advance(1100);
    const sim = await inject({ method: 'POST', url: `/v1/payments/${live.json().id}/simulate`, headers: keyHeader(acct.liveKey), payload: { outcome: 'confirmed' } }, withNode.app);
    expect([sim.statusCode, sim.json()]).toEqual([400, { error: 'only test payments can be simulated: use a test key' }]);
    const atCreate = await inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(acct.liveKey), payload: { order_id: `l-${uid()}`, amount_usd: '25', token: 'ETH', simulate: 'confirmed' } }, withNode.app);
    expect([atCreate.statusCode, atCreate.json()]).toEqual([400, { error: 'only test payments can be simulated: use a test key' }]);
    // the checkout and dashboard simulate routes refuse a live payment in the same words (spec 7)
    const page = await inject({ method: 'POST', url: `/checkout/${live.json().checkout_token}/simulate`, remoteAddress: randomIp(), payload: { outcome: 'confirmed' } }, withNode.app);
    expect([page.statusCode, page.json()]).toEqual([400, { error: 'only test payments can be simulated: use a test key' }]);
    const dash = await inject({ method: 'POST', url: `/merchant/payments/${live.json().id}/simulate`, headers: tokenHeader(acct.accessToken), payload: { outcome: 'confirmed' } }, withNode.app);
    expect([dash.statusCode, dash.json()]).toEqual([400, { error: 'only test payments can be simulated: use a test key' }]);
    expect((await inject({ method: 'GET', url: `/v1/payments/${live.json().id}`, headers: keyHeader(acct.liveKey) }, withNode.app)).json()).not.toHaveProperty('simulation');
  });

  it('live: a coin converted across networks is priced up to the exchange minimum (extra_usd) or offered only from the price that reaches it (spec 1 Fees, 7)', async () => {
    // ETH settles to the merchant's only payout address, USDT on Tron: an exchange converts it, and takes no less than 1.1 × $15
    const m = await signupAccount(withNode.app);
    await h.db().orm.update(merchants).set({ liveEnabled: true }).where(eq(merchants.id, m.merchant.id));
    const added = await inject({ method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(m.accessToken), payload: { token: 'USDT_TRC20', address: ADDR.TRON, password: m.password } }, withNode.app);
    expect(added.statusCode).toBe(201);
    clock.advance(2100);
    const create = (body: Json) => inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(m.liveKey), payload: { order_id: `x-${uid()}`, ...body } }, withNode.app);
    // fees passed on, not hidden: still offered, the customer asked for enough to reach the minimum
    // (17.5 / 0.99 = 17.68 < 17.5 + 0.20 = 17.70; the price alone would ask (10 + 1) / 0.985 → 11.20)
    const topped = await create({ amount_usd: '10', token: 'ETH' });
    expect(topped.statusCode).toBe(201);
    expect(topped.json()).toMatchObject({ usd_amount: '10', amount_due_usd: '17.7', extra_usd: '6.5', network_fee_bps: 50 });
    const listed = (await create({ amount_usd: '10', tokens: ['ETH'] })).json();
    expect(listed.token_options).toMatchObject([{ token: 'ETH', network_fee_bps: 50, amount_due_usd: '17.7' }]);
    // the merchant pays the fees: offered only from the price that reaches the minimum, at every price below it
    clock.advance(1100);
    const set = await inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(m.accessToken), payload: { fees_paid_by_customer: false } }, withNode.app);
    expect(set.statusCode).toBe(200);
    const refusal = { error: 'minimum payment in ETH is $17.7 right now (it is converted on its way to the merchant, and the exchange takes no less)' };
    for (const price of ['10', '16.49', '17']) {
      const res = await create({ amount_usd: price, token: 'ETH' });
      expect([price, res.statusCode, res.json()]).toEqual([price, 400, refusal]);
    }
    expect((await inject({ method: 'GET', url: '/v1/tokens?amount_usd=10', headers: keyHeader(m.liveKey) }, withNode.app)).json().tokens.map((x: Json) => x.token)).not.toContain('ETH');
    // the listings' min_usd is that same price, the least creation takes (spec 2 TokenInfo), not ETH's own $3
    for (const url of ['/v1/tokens', '/v1/tokens?amount_usd=17.7']) {
      const listed = (await inject({ method: 'GET', url, headers: keyHeader(m.liveKey) }, withNode.app)).json().tokens;
      expect([url, listed.find((x: Json) => x.token === 'ETH')?.min_usd]).toEqual([url, '17.7']);
    }
    const dashboard = (await inject({ method: 'GET', url: '/merchant/tokens', headers: tokenHeader(m.accessToken) }, withNode.app)).json().tokens;
    expect(dashboard.find((x: Json) => x.token === 'ETH')?.min_usd).toBe('17.7');
    const enough = await create({ amount_usd: '17.7', token: 'ETH' });
    expect(enough.statusCode).toBe(201);
    expect(enough.json()).toMatchObject({ amount_due_usd: '17.7', network_fee_bps: 50 });
  });

  it('live: a payment with no coin that no coin takes names the lowest price any of its coins takes, and that coin (spec 1 Fees)', async () => {
    // the coins on offer (the ethereum node's) all settle to USDT on Tron through an exchange
    const m = await signupAccount(withNode.app);
    await h.db().orm.update(merchants).set({ liveEnabled: true }).where(eq(merchants.id, m.merchant.id));
    const added = await inject({ method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(m.accessToken), payload: { token: 'USDT_TRC20', address: ADDR.TRON, password: m.password } }, withNode.app);
    expect(added.statusCode).toBe(201);
    clock.advance(2100);
    const set = await inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(m.accessToken), payload: { fees_paid_by_customer: false } }, withNode.app);
    expect(set.statusCode).toBe(200);
    const create = (body: Json) => inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(m.liveKey), payload: { order_id: `n-${uid()}`, ...body } }, withNode.app);
    // ETH's own minimum ($3) is long passed at $10: what it lacks is the exchange's (17.5 / 0.99 = 17.68 < 17.5 + 0.20);
    // USDT_ERC20 and USDC_ERC20 need 16.5 + 2 = 18.5 to reach it, 18.7 with the $0.20 service fee
    const eth = 'minimum payment in ETH is $17.7 right now (it is converted on its way to the merchant, and the exchange takes no less)';
    const usdc = 'minimum payment in USDC_ERC20 is $18.7 right now (it is converted on its way to the merchant, and the exchange takes no less)';
    for (const [body, error] of [
      [{ amount_usd: '10' }, eth],
      // below ETH's own $3 too: $3 would still be refused, so $17.7 is the price named
      [{ amount_usd: '1' }, eth],
      [{ amount_usd: '17.69', tokens: ['USDC_ERC20', 'ETH'] }, eth],
      [{ amount_usd: '18', tokens: ['USDC_ERC20'] }, usdc],
    ] as const) {
      const res = await create(body);
      expect([body, res.statusCode, res.json()]).toEqual([body, 400, { error }]);
    }
    const taken = await create({ amount_usd: '17.7' });
    expect(taken.statusCode).toBe(201);
    expect(taken.json().token_options.map((o: Json) => o.token)).toEqual(['ETH']);
  });

  it('live: a payment in a coin named, or a coin chosen at checkout, below both its minimums names the price it takes, which is then taken (spec 1 Fees)', async () => {
    // ETH settles to USDT on Tron through an exchange; USDT_TRC20 is paid out as it is
    const both = await startTestApp(h.db(), { clock, env: { ETHEREUM_RPC_URL: 'http://127.0.0.1:8545', TRON_API_URL: 'http://127.0.0.1:8090' } });
    try {
      const m = await signupAccount(both.app);
      await h.db().orm.update(merchants).set({ liveEnabled: true }).where(eq(merchants.id, m.merchant.id));
      const added = await inject({ method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(m.accessToken), payload: { token: 'USDT_TRC20', address: ADDR.TRON, password: m.password } }, both.app);
      expect(added.statusCode).toBe(201);
      clock.advance(2100);
      const settings = async (body: Json) => expect((await inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(m.accessToken), payload: body }, both.app)).statusCode).toBe(200);
      const create = (body: Json) => inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(m.liveKey), payload: { order_id: `c-${uid()}`, ...body } }, both.app);
      const exchange = (usd: string) => `minimum payment in ETH is $${usd} right now (it is converted on its way to the merchant, and the exchange takes no less)`;
      const refusedAt = async (amount: string, error: string) => {
        const res = await create({ amount_usd: amount, token: 'ETH' });
        expect([amount, res.statusCode, res.json()]).toEqual([amount, 400, { error }]);
      };
      const takenAt = async (amount: string) => {
        const res = await create({ amount_usd: amount, token: 'ETH' });
        expect([amount, res.statusCode]).toEqual([amount, 201]);
        return res.json();
      };

      // the merchant pays the fees: $1 is under ETH's own $3, and $3 under the exchange's $17.7
      await settings({ fees_paid_by_customer: false });
      await refusedAt('1', exchange('17.7'));
      await refusedAt('3', exchange('17.7'));
      await refusedAt('17.69', exchange('17.7'));
      expect(await takenAt('17.7')).toMatchObject({ token: 'ETH', usd_amount: '17.7' });

      // chosen at checkout: a $2.5 payment the Tron coins take, ETH chosen anyway
      const open = await create({ amount_usd: '2.5' });
      expect([open.statusCode, open.json().token_options.map((o: Json) => o.token)]).toEqual([201, ['TRX', 'USDT_TRC20']]);
      const chosen = await inject({ method: 'POST', url: `/checkout/${open.json().checkout_token}/token`, remoteAddress: randomIp(), payload: { token: 'ETH' } }, both.app);
      expect([chosen.statusCode, chosen.json()]).toEqual([400, { error: exchange('17.7') }]);
      const byKey = await inject({ method: 'POST', url: `/v1/payments/${open.json().id}/token`, headers: keyHeader(m.liveKey), payload: { token: 'ETH' } }, both.app);
      expect([byKey.statusCode, byKey.json()]).toEqual([400, { error: exchange('17.7') }]);
      const enough = await create({ amount_usd: '17.7' });
      const taken = await inject({ method: 'POST', url: `/checkout/${enough.json().checkout_token}/token`, remoteAddress: randomIp(), payload: { token: 'ETH' } }, both.app);
      expect([taken.statusCode, taken.json().token]).toEqual([200, 'ETH']);

      // fees passed on but hide_below_minimum: the least price whose amount due, fees added, reaches
      // $17.7 (16.43 + 1 = 17.43, / 0.985 = 17.6955 → 17.7; 16.42 → 17.69)
      await settings({ fees_paid_by_customer: true, hide_below_minimum: true });
      await refusedAt('1', exchange('16.43'));
      await refusedAt('16.42', exchange('16.43'));
      expect(await takenAt('16.43')).toMatchObject({ token: 'ETH', usd_amount: '16.43' });

      // an own minimum the exchange's already passes is named as before, and taken
      await settings({ hide_below_minimum: false });
      await refusedAt('1', 'amount_usd is below the minimum payment in ETH: $3 right now');
      expect(await takenAt('3')).toMatchObject({ token: 'ETH', usd_amount: '3' });
    } finally {
      await both.close();
    }
  });

  it('`simulate` at creation starts the outcome at once', async () => {
    const p = await createPayment(t.app, acct.testKey, { simulate: 'confirmed' });
    expect(p.simulation).toEqual({ outcome: 'confirmed', state: 'running' });
    for (let i = 0; i < 3; i++) {
      clock.advance(t.config.simulationStepMs);
      await t.services.payments.runDue();
    }
    clock.advance(1100);
    const done = (await inject({ method: 'GET', url: `/v1/payments/${p.id}`, headers: keyHeader(acct.testKey) })).json();
    expect(done).toMatchObject({ status: 'confirmed', simulation: { outcome: 'confirmed', state: 'done' } });
  });
});
