// The exact key sets of spec part 2's payment objects (TokenInfo, Payment, Deposit, Event envelope,
// Delivery, Dashboard figures) in each place they appear: /v1, the dashboard, the payer's view, the
// stored event and the webhook body. Optional fields absent until they apply, never null
// (CONTRACT.md 'Values and formats').
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { createPayment, getPayment, type Json } from '../harness/payments.ts';
import { Receiver } from '../harness/webhooks.ts';
import { ManualClock } from '../../src/platform/clock.ts';

const keys = (o: Json): string[] => Object.keys(o).sort();
const STEP_MS = 1000;
const noNulls = (o: unknown, path = ''): void => {
  if (o === null) throw new Error(`${path} is null`);
  if (typeof o === 'object') for (const [k, v] of Object.entries(o as Json)) noNulls(v, `${path}.${k}`);
};

/** A payment whose coin is chosen, before any deposit: the fields every such payment carries. */
const WITH_COIN = [
  'amount_due_usd', 'chain', 'checkout_token', 'checkout_url', 'created_at', 'crypto_amount', 'deposit_address', 'deposits', 'expires_at',
  'fees_paid_by_customer', 'id', 'livemode', 'merchant_id', 'network_fee', 'network_fee_note', 'network_fee_usd', 'order_id',
  'qr_payload', 'rate_locked', 'received_amount', 'received_usd', 'settlement', 'status', 'token', 'usd_amount',
];
const TOKEN_INFO = ['chain', 'fee_note', 'min_usd', 'network_fee_usd', 'token'];
const DEPOSIT = ['amount', 'confirmations', 'confirmations_required', 'counted', 'simulated', 'status', 'token', 'tx_id', 'usd_value'];

describeEachDb('object key sets: payments', (h) => {
  let t: TestApp;
  let acct: Account;
  let receiver: Receiver;
  const clock = new ManualClock(new Date('2026-03-10T10:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock, env: { SIMULATION_STEP_MS: String(STEP_MS) } });
    t.platform.outbox.subscribe(t.services.webhooks.subscriber);
    acct = await signupAccount(t.app);
    receiver = await Receiver.start();
  });
  afterAll(async () => { await t.close(); await receiver.close(); });
  beforeEach(() => { clock.advance(1100); });

  const inject = (opts: InjectOptions) => t.app.inject({ remoteAddress: randomIp(), ...opts });
  const owner = () => tokenHeader(acct.accessToken);

  it('TokenInfo: /v1/tokens, /tokens and /merchant/tokens (enabled, settles_to), token_options with amount_due_usd', async () => {
    const v1 = (await inject({ method: 'GET', url: '/v1/tokens', headers: keyHeader(acct.testKey) })).json().tokens as Json[];
    expect(v1.length).toBeGreaterThan(0);
    for (const x of v1) expect(keys(x).filter((k) => k !== 'network_fee_bps')).toEqual(TOKEN_INFO);
    const pub = (await inject({ method: 'GET', url: '/tokens?mode=test' })).json().tokens as Json[];
    for (const x of pub) expect(keys(x).filter((k) => k !== 'network_fee_bps')).toEqual(TOKEN_INFO);
    const mine = (await inject({ method: 'GET', url: '/merchant/tokens?mode=test', headers: owner() })).json().tokens as Json[];
    for (const x of mine) expect(keys(x).filter((k) => k !== 'network_fee_bps' && k !== 'paid_out_in')).toEqual([...TOKEN_INFO, 'enabled', 'settles_to'].sort());
    const filtered = (await inject({ method: 'GET', url: '/v1/tokens?amount_usd=25', headers: keyHeader(acct.testKey) })).json().tokens as Json[];
    for (const x of filtered) expect(keys(x).filter((k) => k !== 'network_fee_bps')).toEqual([...TOKEN_INFO, 'amount_due_usd'].sort());
    for (const x of [...v1, ...pub, ...mine, ...filtered]) noNulls(x);

    const p = await createPayment(t.app, acct.testKey, { token: undefined });
    expect(p.token_options.length).toBeGreaterThan(0);
    for (const x of p.token_options) expect(keys(x).filter((k: string) => k !== 'network_fee_bps')).toEqual([...TOKEN_INFO, 'amount_due_usd'].sort());
  });

  it('Payment before a coin: token and deposit_address "", token_options, no coin fields; the payer view drops the private ones', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: undefined, description: 'desk', metadata: { ref: 'c1' }, customer_email: 'a@example.com' });
    noNulls(p);
    expect(p).toMatchObject({ token: '', deposit_address: '', qr_payload: '' });
    expect(keys(p)).toEqual([
      'amount_due_usd', 'chain', 'checkout_token', 'checkout_url', 'created_at', 'customer_email', 'deposit_address', 'deposits', 'description',
      'expires_at', 'fees_paid_by_customer', 'id', 'livemode', 'merchant_id', 'metadata', 'order_id', 'qr_payload', 'received_amount',
      'received_usd', 'settlement', 'status', 'token', 'token_options', 'usd_amount',
    ]);
    const pub = (await inject({ method: 'GET', url: `/checkout/${p.checkout_token}` })).json();
    const hidden = ['merchant_id', 'metadata', 'customer_email', 'checkout_token', 'checkout_url'];
    expect(keys(pub)).toEqual([...keys(p).filter((k) => !hidden.includes(k)), 'merchant_name'].sort());
  });

  it('Payment, deposit, event data and webhook body: the same object, less checkout_token, checkout_url and token_options', async () => {
    const set = await inject({ method: 'PUT', url: '/merchant/webhook?mode=test', headers: owner(), payload: { url: receiver.url } });
    expect(set.statusCode).toBe(200);
    const p = await createPayment(t.app, acct.testKey, { token: 'ETH' });
    expect(keys(p)).toEqual(WITH_COIN);
    noNulls(p);
    await inject({ method: 'POST', url: `/v1/payments/${p.id}/simulate`, headers: keyHeader(acct.testKey), payload: { outcome: 'confirmed' } });
    for (let i = 0; i < 4; i++) { clock.advance(STEP_MS); await t.services.payments.runDue(); }
    await t.platform.outbox.drainNow();
    await t.services.webhooks.worker.runDue();
    const done = await getPayment(t.app, acct.testKey, p.id);
    noNulls(done);
    expect(done.status).toBe('confirmed');
    expect(keys(done)).toEqual([...WITH_COIN, 'confirmed_at', 'simulation'].sort());
    expect(keys(done.simulation)).toEqual(['outcome', 'state']);
    expect(keys(done.deposits[0])).toEqual(DEPOSIT);

    const evs = (await inject({ method: 'GET', url: `/merchant/payments/${p.id}/events`, headers: owner() })).json().events as Json[];
    const confirmed = evs.find((e) => e.type === 'payment.confirmed')!;
    expect(keys(confirmed)).toEqual(['created_at', 'data', 'id', 'livemode', 'merchant_id', 'payment_id', 'type']);
    expect(confirmed.id).toMatch(/^[0-9a-f]{24}$/);
    // the event holds the payment as the API answers it once that step committed: its simulation done
    const { checkout_token: _t, checkout_url: _u, ...expectedData } = done as Json;
    expect(confirmed.data).toEqual(expectedData);
    expect(confirmed.data.deposits[0].simulated).toBe(true);

    const deliveries = (await inject({ method: 'GET', url: '/merchant/webhooks/deliveries?mode=test', headers: owner() })).json().deliveries as Json[];
    const d = deliveries.find((x) => x.event_id === confirmed.id)!;
    noNulls(d);
    expect(keys(d).filter((k) => !['last_status_code', 'last_error', 'last_attempt_at', 'delivered_at', 'resolved_at', 'resolution_note', 'history'].includes(k))).toEqual([
      'attempts', 'created_at', 'event_id', 'event_type', 'id', 'livemode', 'max_attempts', 'merchant_id', 'next_attempt_at', 'payload', 'status', 'target', 'url',
    ]);
    const body = JSON.parse(d.payload);
    expect(keys(body)).toEqual(['created_at', 'data', 'id', 'livemode', 'type']);
    expect(body.data).toEqual(expectedData);
    const one = (await inject({ method: 'GET', url: `/merchant/webhooks/deliveries/${d.id}`, headers: owner() })).json().delivery;
    expect(one).toHaveProperty('history');

    const trail = (await inject({ method: 'GET', url: `/merchant/payments/${p.id}/trail`, headers: owner() })).json().trail;
    noNulls(trail);
    expect(keys(trail.deposits[0])).toEqual([...DEPOSIT, 'final_at', 'seen_at'].sort());
  });

  it('Dashboard figures: the top-level figures, periods of four spans, each {confirmed, volume_usd, by_chain}', async () => {
    const dash = (await inject({ method: 'GET', url: '/merchant/dashboard?mode=test', headers: owner() })).json();
    expect(keys(dash)).toEqual(['by_chain', 'confirmed_today', 'expired_today', 'failed_webhooks', 'generated_at', 'livemode', 'pending', 'periods', 'volume_usd_today']);
    expect(keys(dash.periods)).toEqual(['all_time', 'last_30_days', 'last_7_days', 'today']);
    for (const s of Object.values(dash.periods) as Json[]) expect(keys(s)).toEqual(['by_chain', 'confirmed', 'volume_usd']);
    expect(dash.volume_usd_today).toMatch(/^\d+\.\d{2}$/);
  });
});
