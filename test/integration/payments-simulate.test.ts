// Simulated outcomes, deadlines, tolerance, late deposits, the events timeline, the trail and the
// dashboard figures (spec 2, 3, 6.1, 7), driven by a ManualClock and runDue.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { asc, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signIn, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { createPayment, getPayment, type Json } from '../harness/payments.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { events } from '../../src/events/index.ts';
import { parseUnits } from '../../src/money/index.ts';
import { WEBHOOK_PAYMENT_EVENTS } from '../../src/payments/index.ts';

const STEP_MS = 1000;

describeEachDb('payments simulate', (h) => {
  let t: TestApp;
  let acct: Account;
  let tokenAt = 0;
  const clock = new ManualClock(new Date('2026-03-10T10:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock, env: { SIMULATION_STEP_MS: String(STEP_MS) } });
    acct = await signupAccount(t.app);
    tokenAt = clock.now().getTime();
  });
  afterAll(async () => { await t.close(); });
  beforeEach(() => { clock.advance(1100); });

  const inject = (opts: InjectOptions) => t.app.inject(opts);
  const simulate = (id: string, outcome: unknown, key = acct.testKey) =>
    inject({ method: 'POST', url: `/v1/payments/${id}/simulate`, headers: keyHeader(key), payload: { outcome } });
  /** Plays every step: one step apart on the clock, each run by runDue. */
  const playOut = async (id: string) => {
    for (let i = 0; i < 10; i++) {
      clock.advance(STEP_MS);
      await t.services.payments.runDue();
      const p = await getPayment(t.app, acct.testKey, id);
      if (p.simulation?.state === 'done') return p;
    }
    throw new Error('simulation never finished');
  };
  // Through the route while the owner's access token lives (15 minutes of the test clock); from the table after.
  const webhookTypes = async (id: string): Promise<string[]> => {
    const fresh = clock.now().getTime() - tokenAt < 14 * 60 * 1000;
    if (fresh) {
      const res = await inject({ method: 'GET', url: `/merchant/payments/${id}/events`, headers: tokenHeader(acct.accessToken) });
      return res.json().events.map((e: Json) => e.type);
    }
    return (await allTypes(id)).filter((x) => WEBHOOK_PAYMENT_EVENTS.includes(x));
  };
  const allTypes = async (id: string): Promise<string[]> =>
    (await h.db().orm.select().from(events).where(eq(events.paymentId, id)).orderBy(asc(events.seq))).map((e) => e.type);

  it.each([
    ['confirmed', 'confirmed', ['payment.detecting', 'payment.confirmed']],
    ['overpaid', 'confirmed', ['payment.detecting', 'payment.confirmed']],
    ['partially_paid', 'partially_paid', ['payment.partially_paid']],
    ['underpaid', 'underpaid', ['payment.partially_paid', 'payment.underpaid']],
    ['expired', 'expired', ['payment.expired']],
    ['failed', 'failed', ['payment.detecting', 'payment.failed']],
    ['wrong_asset', 'pending', ['payment.wrong_asset']],
    ['paid_late', 'confirmed', ['payment.expired', 'payment.detecting', 'payment.late_deposit', 'payment.confirmed']],
  ])('outcome %s ends %s with events %j', async (outcome, status, expected) => {
    const p = await createPayment(t.app, acct.testKey, { token: 'ETH' });
    const started = await simulate(p.id, outcome);
    expect(started.statusCode).toBe(200);
    expect(started.json().simulation).toEqual({ outcome, state: 'running' });
    // nothing happens before the first step is due
    expect(await t.services.payments.runDue()).toBe(0);
    const done = await playOut(p.id);
    expect(done.status).toBe(status);
    expect(done.simulation).toEqual({ outcome, state: 'done' });
    expect(done.deposits.every((d: Json) => d.simulated === true)).toBe(true);
    expect(await webhookTypes(p.id)).toEqual(expected);
    const all = await allTypes(p.id);
    expect(all[0]).toBe('payment.created');
    expect(all.filter((x) => x === 'payment.simulation')).toHaveLength(2);
    if (outcome === 'overpaid') expect(parseUnits(done.received_amount, 18)! > parseUnits(done.crypto_amount, 18)!).toBe(true);
    if (outcome === 'wrong_asset') expect(done.deposits[0]).toMatchObject({ token: 'USDT_ERC20', counted: false });
    // the dropped deposit is failed itself, not left pending for a watcher to finalise later
    if (outcome === 'failed') expect(done.deposits).toMatchObject([{ status: 'failed', counted: false }]);
    if (status === 'confirmed') expect(done.received_usd).not.toBe('0');
  });

  it('event data is exactly the notification data: the payment without checkout fields', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: 'TRX', webhook_url: 'http://127.0.0.1:9/hook' });
    await simulate(p.id, 'confirmed');
    await playOut(p.id);
    const res = await inject({ method: 'GET', url: `/merchant/payments/${p.id}/events?limit=1`, headers: tokenHeader(acct.accessToken) });
    const b = res.json();
    expect(b).toMatchObject({ limit: 1, offset: 0 });
    const [e] = b.events;
    expect(e).toMatchObject({ type: 'payment.detecting', livemode: false, merchant_id: acct.merchant.id, payment_id: p.id });
    expect(e.id).toMatch(/^[0-9a-f]{24}$/);
    expect(e.data.checkout_token).toBeUndefined();
    expect(e.data.checkout_url).toBeUndefined();
    expect(e.data.token_options).toBeUndefined();
    expect(e.data).toMatchObject({ id: p.id, status: 'detecting', webhook_url: 'http://127.0.0.1:9/hook' });
    expect(e.data.deposits[0].simulated).toBe(true);
    const [row] = await h.db().orm.select().from(events).where(eq(events.id, e.id));
    expect(row.webhookUrl).toBe('http://127.0.0.1:9/hook');
  });

  it('refuses simulations with the messages of spec 7', async () => {
    const refusal = async (res: Promise<{ statusCode: number; json(): unknown }>) => { const r = await res; return [r.statusCode, r.json()]; };
    expect(await refusal(simulate('pay_none', 'confirmed'))).toEqual([404, { error: 'payment not found' }]);
    const p = await createPayment(t.app, acct.testKey, { token: 'BTC', amount_usd: '50' });
    expect(await refusal(simulate(p.id, undefined))).toEqual([400, { error: 'outcome is required' }]);
    expect(await refusal(simulate(p.id, 'nope'))).toEqual([400, { error: 'simulate must be one of: confirmed, overpaid, partially_paid, underpaid, expired, failed, wrong_asset, paid_late' }]);
    expect(await refusal(simulate(p.id, 'wrong_asset'))).toEqual([400, { error: 'a BTC address only receives BTC: wrong_asset needs a coin on Tron, Ethereum or BNB Smart Chain' }]);
    expect((await simulate(p.id, 'confirmed')).statusCode).toBe(200);
    const again = await simulate(p.id, 'confirmed');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'a simulation is already running for this payment' });
    await playOut(p.id);
    clock.advance(1100);
    expect(await refusal(simulate(p.id, 'confirmed'))).toEqual([400, { error: 'this payment is confirmed: only a pending or partially paid payment can be simulated' }]);
    const bare = await createPayment(t.app, acct.testKey, { token: undefined });
    expect(await refusal(simulate(bare.id, 'confirmed'))).toEqual([400, { error: "choose the payment's coin first" }]);
    expect((await simulate(bare.id, 'expired')).statusCode).toBe(200);
    expect((await playOut(bare.id)).status).toBe('expired');
  });

  it('refuses simulations on the checkout and dashboard routes with the same messages as /v1', async () => {
    clock.advance(1100);
    const token = tokenHeader((await signIn(t.app, acct.email)).accessToken);
    const routes = {
      checkout: (p: Json, payload: Json) => inject({ method: 'POST', url: `/checkout/${p.checkout_token}/simulate`, remoteAddress: randomIp(), payload }),
      dashboard: (p: Json, payload: Json) => inject({ method: 'POST', url: `/merchant/payments/${p.id}/simulate`, headers: token, payload }),
    };
    for (const [name, sim] of Object.entries(routes)) {
      const refusal = async (p: Json, payload: Json) => { const r = await sim(p, payload); return [name, r.statusCode, r.json()]; };
      const p = await createPayment(t.app, acct.testKey, { token: 'BTC', amount_usd: '50' });
      expect(await refusal(p, {})).toEqual([name, 400, { error: 'outcome is required' }]);
      expect(await refusal(p, { outcome: 'nope' })).toEqual([name, 400, { error: 'simulate must be one of: confirmed, overpaid, partially_paid, underpaid, expired, failed, wrong_asset, paid_late' }]);
      expect(await refusal(p, { outcome: 'wrong_asset' })).toEqual([name, 400, { error: 'a BTC address only receives BTC: wrong_asset needs a coin on Tron, Ethereum or BNB Smart Chain' }]);
      expect((await sim(p, { outcome: 'confirmed' })).statusCode).toBe(200);
      expect(await refusal(p, { outcome: 'confirmed' })).toEqual([name, 409, { error: 'a simulation is already running for this payment' }]);
      await playOut(p.id);
      clock.advance(1100);
      expect(await refusal(p, { outcome: 'confirmed' })).toEqual([name, 400, { error: 'this payment is confirmed: only a pending or partially paid payment can be simulated' }]);
      const bare = await createPayment(t.app, acct.testKey, { token: undefined });
      expect(await refusal(bare, { outcome: 'confirmed' })).toEqual([name, 400, { error: "choose the payment's coin first" }]);
    }
  });

  it('runs exactly one of three simulations started at once (API, checkout, dashboard), each event once', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: 'TRX', amount_usd: '50' });
    const results = await Promise.all([
      simulate(p.id, 'confirmed'),
      inject({ method: 'POST', url: `/checkout/${p.checkout_token}/simulate`, payload: { outcome: 'underpaid' }, remoteAddress: randomIp() }),
      inject({ method: 'POST', url: `/merchant/payments/${p.id}/simulate`, headers: tokenHeader(acct.accessToken), payload: { outcome: 'failed' } }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409, 409]);
    for (const r of results.filter((x) => x.statusCode === 409)) expect(r.json()).toEqual({ error: 'a simulation is already running for this payment' });
    const outcome = results.find((r) => r.statusCode === 200)!.json().simulation.outcome;
    const done = await playOut(p.id);
    expect(done.simulation.outcome).toBe(outcome);
    const expected = { confirmed: ['payment.detecting', 'payment.confirmed'], underpaid: ['payment.partially_paid', 'payment.underpaid'], failed: ['payment.detecting', 'payment.failed'] }[outcome as string];
    expect(await webhookTypes(p.id)).toEqual(expected);
    expect((await allTypes(p.id)).filter((x) => x === 'payment.simulation')).toHaveLength(2);
  });

  it('simulates from the checkout (5 a second per IP) and the dashboard', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: 'LTC' });
    const ip = randomIp();
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await inject({ method: 'POST', url: `/checkout/${p.checkout_token}/simulate`, remoteAddress: ip, payload: {} })).statusCode);
    expect(codes).toEqual([400, 400, 400, 400, 400, 429]);
    const c = await inject({ method: 'POST', url: `/checkout/${p.checkout_token}/simulate`, remoteAddress: randomIp(), payload: { outcome: 'partially_paid' } });
    expect(c.statusCode).toBe(200);
    expect(c.json().merchant_id).toBeUndefined();
    expect(c.json().simulation.state).toBe('running');
    await playOut(p.id);
    const q = await createPayment(t.app, acct.testKey, { token: 'DOGE' });
    const m = await inject({ method: 'POST', url: `/merchant/payments/${q.id}/simulate`, headers: tokenHeader(acct.accessToken), payload: { outcome: 'failed' } });
    expect(m.statusCode).toBe(200);
    expect((await playOut(q.id)).status).toBe('failed');
  });

  it('a payment expires at its deadline; one without a coin after the hour to choose', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: 'ETH' });
    clock.advance(15 * 60 * 1000 - 2000);
    await t.services.payments.runDue();
    expect((await getPayment(t.app, acct.testKey, p.id)).status).toBe('pending');
    clock.advance(2000);
    await t.services.payments.runDue();
    expect((await getPayment(t.app, acct.testKey, p.id)).status).toBe('expired');
    expect(await webhookTypes(p.id)).toEqual(['payment.expired']);

    const bare = await createPayment(t.app, acct.testKey, { token: undefined });
    clock.advance(60 * 60 * 1000);
    const late = await inject({ method: 'POST', url: `/checkout/${bare.checkout_token}/token`, remoteAddress: randomIp(), payload: { token: 'ETH' } });
    expect([late.statusCode, late.json()]).toEqual([400, { error: 'this payment can no longer be paid' }]);
    await t.services.payments.runDue();
    clock.advance(1100);
    expect((await getPayment(t.app, acct.testKey, bare.id)).status).toBe('expired');
  });

  it('counts a deposit short by no more than the tolerance as paid; more short is partial, then underpaid', async () => {
    const intake = t.services.payments.intake;
    const p = await createPayment(t.app, acct.testKey, { token: 'USDT_TRC20', amount_usd: '100' });
    const due = parseUnits(p.crypto_amount, 6)!;
    const ref = { paymentId: p.id };
    // 50 bps tolerance: 0.4% short still pays
    await intake.recordDeposit(ref, { txId: 'tx-tol', token: 'USDT_TRC20', amount: due - (due * 40n) / 10_000n, confirmations: 1, at: clock.now() });
    expect((await getPayment(t.app, acct.testKey, p.id)).status).toBe('detecting');
    await intake.updateConfirmations(ref, 'tx-tol', 5, clock.now());
    // a count that does not go up changes nothing (only setInclusion may lower it, after a reorganisation)
    await intake.updateConfirmations(ref, 'tx-tol', 3, clock.now());
    clock.advance(1100);
    expect(await getPayment(t.app, acct.testKey, p.id)).toMatchObject({ status: 'detecting', confirmations: 5, confirmations_required: 20 });
    await intake.updateConfirmations(ref, 'tx-tol', 20, clock.now());
    clock.advance(1100);
    const done = await getPayment(t.app, acct.testKey, p.id);
    expect(done.status).toBe('confirmed');
    expect(done.deposits[0]).toMatchObject({ status: 'final', counted: true, confirmations: 20 });
    // reported while detecting only (spec 1 Payment behaviour 8)
    expect(done.confirmations).toBeUndefined();
    expect(done.confirmations_required).toBeUndefined();

    const q = await createPayment(t.app, acct.testKey, { token: 'USDT_TRC20', amount_usd: '100' });
    const qdue = parseUnits(q.crypto_amount, 6)!;
    await intake.recordDeposit({ paymentId: q.id }, { txId: 'tx-short', token: 'USDT_TRC20', amount: qdue / 2n, confirmations: 0, at: clock.now() });
    clock.advance(1100);
    expect((await getPayment(t.app, acct.testKey, q.id)).status).toBe('partially_paid');
    clock.advance(15 * 60 * 1000);
    await t.services.payments.runDue();
    expect((await getPayment(t.app, acct.testKey, q.id)).status).toBe('underpaid');
    // recording the same transfer again changes nothing
    await intake.recordDeposit({ paymentId: q.id }, { txId: 'tx-short', token: 'USDT_TRC20', amount: qdue / 2n, confirmations: 0, at: clock.now() });
    clock.advance(1100);
    expect((await getPayment(t.app, acct.testKey, q.id)).deposits).toHaveLength(1);
  });

  it('values a deposit in another coin at that coin\'s market price, never at the payment\'s locked rate', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: 'ETH', amount_usd: '25' });
    // 10 USDT on the ETH address: $10 at the market, not 10 × the $3000 locked for ETH
    await t.services.payments.intake.recordDeposit({ paymentId: p.id }, { txId: 'usdt-on-eth', token: 'USDT_ERC20', amount: 10_000_000n, confirmations: 0, at: clock.now() });
    clock.advance(1100);
    const got = await getPayment(t.app, acct.testKey, p.id);
    expect(got.deposits[0]).toMatchObject({ token: 'USDT_ERC20', amount: '10', usd_value: '10', counted: false });
    expect(got).toMatchObject({ status: 'pending', received_usd: '0', received_amount: '0' });
  });

  it('a deposit already final when it pays raises detecting (as detecting) then confirmed', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: 'XRP' });
    const r = await t.services.payments.intake.recordDeposit({ address: p.deposit_address, tag: p.destination_tag },
      { txId: 'xrp-final', token: 'XRP', amount: parseUnits(p.crypto_amount, 6)!, confirmations: 1, at: clock.now() });
    expect(r.kind).toBe('recorded');
    const rows = (await h.db().orm.select().from(events).where(eq(events.paymentId, p.id)).orderBy(asc(events.seq)))
      .filter((e) => WEBHOOK_PAYMENT_EVENTS.includes(e.type));
    expect(rows.map((e) => [e.type, (e.data as Json).status])).toEqual([['payment.detecting', 'detecting'], ['payment.confirmed', 'confirmed']]);
    expect((rows[1].data as Json).confirmed_at).toBe(clock.now().toISOString());
    expect((rows[0].data as Json).confirmed_at).toBeUndefined();
    // reported while detecting (spec 2 Payment object): the paying deposit's count
    const dep = (rows[0].data as Json).deposits[0];
    expect(rows[0].data).toMatchObject({ confirmations: dep.confirmations, confirmations_required: dep.confirmations_required });
    expect(dep.confirmations).toBeGreaterThanOrEqual(1);
  });

  it('takes a late deposit within 24 hours of expires_at, by address; after that it is unmatched', async () => {
    const intake = t.services.payments.intake;
    const p = await createPayment(t.app, acct.testKey, { token: 'BNB' });
    clock.advance(15 * 60 * 1000);
    await t.services.payments.runDue();
    const amount = parseUnits(p.crypto_amount, 18)!;
    clock.advance(23 * 60 * 60 * 1000);
    const r = await intake.recordDeposit({ address: p.deposit_address }, { txId: 'late-1', token: 'BNB', amount, confirmations: 0, at: clock.now() });
    expect(r.kind).toBe('recorded');
    clock.advance(1100);
    const got = await getPayment(t.app, acct.testKey, p.id);
    expect(got.status).toBe('detecting');
    expect(got.deposits[0].late).toBe(true);
    expect(await webhookTypes(p.id)).toEqual(['payment.expired', 'payment.detecting', 'payment.late_deposit']);

    const q = await createPayment(t.app, acct.testKey, { token: 'BNB' });
    clock.advance(15 * 60 * 1000 + 24 * 60 * 60 * 1000 + 1000);
    await t.services.payments.runDue();
    const u = await intake.recordDeposit({ paymentId: q.id }, { txId: 'too-late', token: 'BNB', amount, confirmations: 0, at: clock.now() });
    expect(u.kind).toBe('unmatched');
  });

  it('late window edge (spec 8 "up to 24 hours after expires_at", inclusive): 1 ms before and exactly 24 h are late deposits, 1 ms after is unmatched', async () => {
    const intake = t.services.payments.intake;
    const WINDOW = 24 * 60 * 60 * 1000;
    const at = async (offsetMs: number, txId: string) => {
      const p = await createPayment(t.app, acct.testKey, { token: 'BNB' });
      const expires = new Date(p.expires_at).getTime();
      clock.set(new Date(expires));
      await t.services.payments.runDue();
      clock.set(new Date(expires + offsetMs));
      const amount = parseUnits(p.crypto_amount, 18)!;
      const r = await intake.recordDeposit({ address: p.deposit_address }, { txId, token: 'BNB', amount, confirmations: 0, at: clock.now() });
      clock.advance(1100);
      return { r, p: await getPayment(t.app, acct.testKey, p.id) };
    };
    const before = await at(WINDOW - 1, 'late-edge-before');
    expect(before.r.kind).toBe('recorded');
    expect(before.p.status).toBe('detecting');
    expect(before.p.deposits[0].late).toBe(true);
    const edge = await at(WINDOW, 'late-edge-at');
    expect(edge.r.kind).toBe('recorded');
    expect(edge.p.status).toBe('detecting');
    expect(edge.p.deposits[0].late).toBe(true);
    const after = await at(WINDOW + 1, 'late-edge-after');
    expect(after.r.kind).toBe('unmatched');
    expect(after.p.status).toBe('expired');
    expect(after.p.deposits).toEqual([]);
  });

  it('dashboard expired_today counts the payments of the mode that expired today', async () => {
    const other = await signupAccount(t.app);
    const a = await createPayment(t.app, other.testKey, { token: 'ETH' });
    await createPayment(t.app, other.testKey, { token: undefined });
    // read from the service: the 15 minutes to the deadline outlive the owner's access token
    const figures = (livemode = false) => t.services.payments.dashboard(other.merchant.id, livemode);
    expect(await figures()).toMatchObject({ expired_today: 0, pending: 2 });
    clock.advance(15 * 60 * 1000);
    await t.services.payments.runDue();
    expect((await getPayment(t.app, other.testKey, a.id)).status).toBe('expired');
    expect(await figures()).toMatchObject({ expired_today: 1, pending: 1 });
    expect((await figures(true)).expired_today).toBe(0);
  });

  it('trail has every key; dashboard figures count confirmed payments of the mode', async () => {
    const other = await signupAccount(t.app);
    const a = await createPayment(t.app, other.testKey, { token: 'ETH', amount_usd: '25' });
    const b = await createPayment(t.app, other.testKey, { token: 'TRX', amount_usd: '10.5' });
    await createPayment(t.app, other.testKey, { token: 'BTC', amount_usd: '50' });
    const key = other.testKey;
    for (const id of [a.id, b.id]) await inject({ method: 'POST', url: `/v1/payments/${id}/simulate`, headers: keyHeader(key), payload: { outcome: 'confirmed' } });
    for (let i = 0; i < 3; i++) { clock.advance(STEP_MS); await t.services.payments.runDue(); }
    clock.advance(1100);
    const dash = (await inject({ method: 'GET', url: '/merchant/dashboard?mode=test', headers: tokenHeader(other.accessToken) })).json();
    expect(dash).toMatchObject({
      livemode: false, confirmed_today: 2, volume_usd_today: '35.50', pending: 1, expired_today: 0, failed_webhooks: 0,
      by_chain: { ethereum: '25', tron: '10.5' },
    });
    expect(dash.periods.today).toEqual({ confirmed: 2, volume_usd: '35.50', by_chain: { ethereum: '25', tron: '10.5' } });
    expect(dash.periods.all_time.confirmed).toBe(2);
    expect(dash.periods.last_7_days.volume_usd).toBe('35.50');
    const live = (await inject({ method: 'GET', url: '/merchant/dashboard', headers: tokenHeader(other.accessToken) })).json();
    expect(live).toMatchObject({ livemode: true, confirmed_today: 0, volume_usd_today: '0.00', periods: { all_time: { confirmed: 0, volume_usd: '0.00', by_chain: {} } } });

    const trail = (await inject({ method: 'GET', url: `/merchant/payments/${a.id}/trail`, headers: tokenHeader(other.accessToken) })).json().trail;
    expect(Object.keys(trail).sort()).toEqual(['audit', 'deposits', 'events', 'generated_at', 'ledger', 'payment', 'settlements', 'unmatched_deposits', 'webhook_deliveries']);
    expect(trail.payment.id).toBe(a.id);
    expect(trail.deposits[0]).toMatchObject({ simulated: true, status: 'final' });
    expect(trail.events.map((e: Json) => e.type)).toEqual(['payment.detecting', 'payment.confirmed']);
    // seen when the payment was detecting, final when it was confirmed
    expect(trail.deposits[0]).toMatchObject({ seen_at: trail.events[0].created_at, final_at: trail.events[1].created_at });
    expect(trail.audit.map((e: Json) => e.action)).toEqual(['payment.created']);
    expect(trail.audit[0].actor).toMatchObject({ kind: 'api_key', id: other.testKeyId });
  });
});
