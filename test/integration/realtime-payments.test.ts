// The sockets fed by the real payments room: creation reaches the dashboard, a coin choice and a
// simulation reach the checkout socket in the payer's view.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { keyHeader, randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { createPayment } from '../harness/payments.ts';
import { foundOrNull, type PaymentJson } from '../../src/realtime/index.ts';
import { ask, closeSockets, collect, connect, next, startSocketApp, until, type SocketApp } from './realtime-support.ts';

interface Update { type: string; status: string; payment: PaymentJson; merchant_id?: string }

describeEachDb('sockets fed by payments', (h) => {
  let t: SocketApp;
  let owner: Account;
  beforeAll(async () => {
    t = await startSocketApp(h.db(), { env: { SIMULATION_STEP_MS: '50' } });
    t.services.realtime.use({ checkout: { payerViewByToken: (tok) => foundOrNull(t.services.payments.checkoutView(tok)) } });
    t.services.payments.timers.start();
    owner = await signupAccount(t.app);
  });
  afterAll(async () => {
    await t.services.payments.timers.stop();
    await t.close();
  });
  afterEach(() => closeSockets());

  it('tells the dashboard of creation, and the payer of the coin choice and every simulated step', async () => {
    const dash = connect(`${t.url}/merchant`, { auth: { token: owner.accessToken } });
    await next(dash, 'session');
    const dashUpdates = collect<Update>(dash, 'payment:update');
    const p = await createPayment(t.app, owner.testKey, { token: undefined });
    await until(() => dashUpdates.some((u) => u.type === 'payment.created'));
    expect(dashUpdates[0]).toMatchObject({ merchant_id: owner.merchant.id, status: 'pending' });

    const s = connect(t.url);
    const got = collect<Update>(s, 'payment:update');
    const ack = await ask<{ ok: boolean; payment: PaymentJson }>(s, 'subscribe', p.checkout_token);
    expect(ack.ok).toBe(true);
    // the payer's view, the same as the checkout page reads, with the coins to choose from
    const page = (await t.app.inject({ method: 'GET', url: `/checkout/${p.checkout_token}`, remoteAddress: randomIp() })).json();
    expect(ack.payment).toEqual(page);
    expect(page.token_options.length).toBeGreaterThan(0);
    expect(ack.payment).not.toHaveProperty('merchant_id');

    const chose = await t.app.inject({ method: 'POST', url: `/checkout/${p.checkout_token}/token`, payload: { token: 'BTC' }, remoteAddress: randomIp() });
    expect(chose.statusCode).toBe(200);
    await until(() => got.some((u) => u.type === 'payment.coin_chosen'));
    const chosen = got.find((u) => u.type === 'payment.coin_chosen')!;
    expect(chosen.payment.deposit_address).toBe(chose.json().deposit_address);
    expect(chosen.payment).not.toHaveProperty('merchant_id');

    const sim = await t.app.inject({ method: 'POST', url: `/checkout/${p.checkout_token}/simulate`, payload: { outcome: 'confirmed' }, remoteAddress: randomIp() });
    expect(sim.statusCode).toBe(200);
    await until(() => got.some((u) => u.type === 'payment.confirmed'), 15_000);
    const types = got.map((u) => u.type);
    expect(types[0]).toBe('payment.snapshot');
    expect(types).toContain('payment.simulation');
    expect(types.indexOf('payment.detecting')).toBeLessThan(types.indexOf('payment.confirmed'));
    expect(got.find((u) => u.type === 'payment.confirmed')!.status).toBe('confirmed');
  });

  it('a simulation of a payment with no coin yet carries its token_options, as GET /checkout gives them', async () => {
    const p = await createPayment(t.app, owner.testKey, { token: undefined });
    const s = connect(t.url);
    const got = collect<Update>(s, 'payment:update');
    await ask(s, 'subscribe', p.checkout_token);
    const sim = await t.app.inject({ method: 'POST', url: `/checkout/${p.checkout_token}/simulate`, payload: { outcome: 'expired' }, remoteAddress: randomIp() });
    expect(sim.statusCode, sim.body).toBe(200);
    expect(sim.json().token_options.length).toBeGreaterThan(0);
    await until(() => got.filter((u) => u.type === 'payment.simulation').length >= 2, 15_000);
    const [running, done] = got.filter((u) => u.type === 'payment.simulation');
    // the page renders the coin list from this payment while the simulation runs
    expect(running.payment).toEqual(sim.json());
    const page = (await t.app.inject({ method: 'GET', url: `/checkout/${p.checkout_token}`, remoteAddress: randomIp() })).json();
    expect(done.payment).toEqual(page);
  });

  it('the dashboard\'s payment:update carries the payment as GET /merchant/payments/{id} gives it (spec 6.3), checkout link included', async () => {
    const dash = connect(`${t.url}/merchant`, { auth: { token: owner.accessToken } });
    await next(dash, 'session');
    const got = collect<Update>(dash, 'payment:update');
    const p = await createPayment(t.app, owner.testKey, { token: 'BTC' });
    const rest = async () => (await t.app.inject({ method: 'GET', url: `/merchant/payments/${p.id}?mode=test`, headers: tokenHeader(owner.accessToken), remoteAddress: randomIp() })).json();
    await until(() => got.some((u) => u.type === 'payment.created' && u.payment.id === p.id));
    const created = await rest();
    expect(created.checkout_url).toMatch(/\/pay\//);
    expect(got.find((u) => u.type === 'payment.created')!.payment).toEqual(created);
    const sim = await t.app.inject({ method: 'POST', url: `/v1/payments/${p.id}/simulate`, headers: keyHeader(owner.testKey), payload: { outcome: 'confirmed' }, remoteAddress: randomIp() });
    expect(sim.statusCode, sim.body).toBe(200);
    await until(() => got.some((u) => u.type === 'payment.confirmed' && u.payment.id === p.id), 15_000);
    expect(got.find((u) => u.type === 'payment.confirmed')!.payment).toEqual(await rest());
  });
  it('the dashboard\'s payment.created of a payment with no coin carries its token_options, as GET /merchant/payments/{id} gives them', async () => {
    const dash = connect(`${t.url}/merchant`, { auth: { token: owner.accessToken } });
    await next(dash, 'session');
    const got = collect<Update>(dash, 'payment:update');
    const p = await createPayment(t.app, owner.testKey, { token: undefined });
    await until(() => got.some((u) => u.type === 'payment.created' && u.payment.id === p.id));
    const rest = (await t.app.inject({ method: 'GET', url: `/merchant/payments/${p.id}?mode=test`, headers: tokenHeader(owner.accessToken), remoteAddress: randomIp() })).json();
    expect(rest.token_options.length).toBeGreaterThan(0);
    expect(got.find((u) => u.type === 'payment.created')!.payment).toEqual(rest);
    // created with a simulation (written in its own transaction): the same options as its answer
    const sim = await createPayment(t.app, owner.testKey, { token: undefined, simulate: 'expired' });
    expect(sim.token_options.length).toBeGreaterThan(0);
    await until(() => got.some((u) => u.type === 'payment.created' && u.payment.id === sim.id));
    expect(got.find((u) => u.type === 'payment.created' && u.payment.id === sim.id)!.payment.token_options).toEqual(sim.token_options);
  });
  it('a payment that expires before its coin was chosen tells the payer with its token_options, as GET /checkout gives them', async () => {
    const p = await createPayment(t.app, owner.testKey, { token: undefined });
    const s = connect(t.url);
    const got = collect<Update>(s, 'payment:update');
    await ask(s, 'subscribe', p.checkout_token);
    // the hour to choose a coin passes (the deadline's timer runs as at expires_at)
    expect(await t.services.payments.runDue(new Date(p.expires_at))).toBeGreaterThanOrEqual(1);
    await until(() => got.some((u) => u.type === 'payment.expired'));
    const expired = got.find((u) => u.type === 'payment.expired')!;
    expect(expired.payment.status).toBe('expired');
    const page = (await t.app.inject({ method: 'GET', url: `/checkout/${p.checkout_token}`, remoteAddress: randomIp() })).json();
    expect(page.token_options.length).toBeGreaterThan(0);
    expect(expired.payment).toEqual(page);
    // the webhook's view never carries them
    const events = await t.app.inject({ method: 'GET', url: `/merchant/payments/${p.id}/events?mode=test`, headers: tokenHeader(owner.accessToken) });
    expect(events.statusCode, events.body).toBe(200);
    expect(events.body).toContain('payment.expired');
    expect(events.body).not.toContain('token_options');
  });
});
