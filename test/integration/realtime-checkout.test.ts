// Checkout socket (spec 4.3, 6.2): acknowledgements, snapshot, updates fed from the outbox,
// several payments on one socket, and replay of missed events after a short drop (spec 8).
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { signupAccount } from '../harness/accounts.ts';
import { ask, closeSockets, collect, commitEvent, connect, fakePayment, next, sleep, startSocketApp, until, type SocketApp } from './realtime-support.ts';
import type { PaymentJson } from '../../src/realtime/index.ts';
import { RECOVERY_WINDOW_MS } from '../../src/realtime/events.ts';

interface Update { type: string; payment: PaymentJson; [k: string]: unknown }

describeEachDb('checkout socket', (h) => {
  let t: SocketApp;
  let merchantId: string;
  beforeAll(async () => {
    t = await startSocketApp(h.db());
    merchantId = (await signupAccount(t.app)).merchant.id;
  });
  afterAll(async () => { await t.close(); });
  afterEach(() => closeSockets());

  function addPayment(over: Record<string, unknown> = {}): PaymentJson {
    const p = fakePayment(merchantId, over);
    t.payments.set(p.checkout_token as string, p);
    return p;
  }

  it('asks for a checkout token when subscribe has none, null or an empty string', async () => {
    const s = connect(t.url);
    for (const args of [[], [null], [''], [42]]) {
      expect(await ask(s, 'subscribe', ...args)).toEqual({ ok: false, error: 'checkout token required' });
    }
    expect(await ask(s, 'unsubscribe')).toEqual({ ok: false, error: 'checkout token required' });
    expect(s.connected).toBe(true);
  });

  it('answers payment not found to an unknown token and disconnects', async () => {
    const s = connect(t.url, { reconnection: false });
    await next(s, 'connect');
    const gone = next<string>(s, 'disconnect');
    expect(await ask(s, 'subscribe', 'ct_nope')).toEqual({ ok: false, error: 'payment not found' });
    expect(await gone).toBe('io server disconnect');
  });

  // A failed lookup (the database unreachable for a moment) is not an unknown token: the payer is
  // not told the payment does not exist, and the client's own reconnection subscribes again.
  it('answers internal error when the lookup fails, and the reconnected client subscribes again', async () => {
    const p = addPayment();
    const source = t.services.realtime.checkout;
    let failures = 1;
    t.services.realtime.use({ checkout: { payerViewByToken: async (tok) => {
      if (failures-- > 0) throw new Error('connection terminated unexpectedly');
      return source.payerViewByToken(tok);
    } } });
    try {
      const s = connect(t.url);
      await next(s, 'connect');
      const dropped = next<string>(s, 'disconnect');
      expect(await ask(s, 'subscribe', p.checkout_token)).toEqual({ ok: false, error: 'internal error' });
      // a transport drop, which the client recovers from on its own (not 'io server disconnect')
      expect(await dropped).not.toBe('io server disconnect');
      await next(s, 'connect');
      const ack = await ask<{ ok: boolean; payment: PaymentJson }>(s, 'subscribe', p.checkout_token);
      expect(ack.ok).toBe(true);
      expect(ack.payment.id).toBe(p.id);
    } finally {
      t.services.realtime.use({ checkout: source });
    }
  });

  it('acknowledges with the payer view, then sends a snapshot', async () => {
    const p = addPayment();
    const s = connect(t.url);
    const snapshot = next<Update>(s, 'payment:update');
    const ack = await ask<{ ok: boolean; payment: PaymentJson }>(s, 'subscribe', p.checkout_token);
    expect(ack.ok).toBe(true);
    expect(ack.payment.id).toBe(p.id);
    const u = await snapshot;
    expect(u.type).toBe('payment.snapshot');
    expect(u.payment.id).toBe(p.id);
    for (const f of ['merchant_id', 'metadata', 'customer_email', 'webhook_url', 'checkout_token', 'checkout_url']) expect(u.payment).not.toHaveProperty(f);
  });

  it('sends every committed change as payment:update with the flat form; never payment.created', async () => {
    const p = addPayment();
    const s = connect(t.url);
    const snapshot = next(s, 'payment:update');
    await ask(s, 'subscribe', p.checkout_token);
    await snapshot;
    const got = collect<Update>(s, 'payment:update');
    await commitEvent(t.platform.db, { type: 'payment.created', merchantId, paymentId: p.id, data: p });
    const detecting = { ...p, status: 'detecting', received_amount: '0.001', deposits: [{ tx_id: 'tx-1', amount: '0.001', confirmations: 1, confirmations_required: 3 }] };
    await commitEvent(t.platform.db, { type: 'payment.detecting', merchantId, paymentId: p.id, data: detecting });
    await commitEvent(t.platform.db, { type: 'payment.confirmed', merchantId, paymentId: p.id, data: { ...detecting, status: 'confirmed', confirmed_at: '2026-01-05T12:00:00.000Z' } });
    await until(() => got.length >= 2);
    await sleep(100);
    expect(got.map((u) => u.type)).toEqual(['payment.detecting', 'payment.confirmed']);
    expect(got[0]).toMatchObject({
      id: p.id, livemode: false, order_id: p.order_id, status: 'detecting', tx_id: 'tx-1', confirmations: 1,
      crypto_amount: '0.001', token: 'BTC', chain: 'bitcoin',
    });
    expect(got[0].payment).not.toHaveProperty('metadata');
    expect(got[1].confirmed_at).toBe('2026-01-05T12:00:00.000Z');
  });

  it('follows several payments on one socket; unsubscribe stops one of them', async () => {
    const a = addPayment();
    const b = addPayment();
    const s = connect(t.url);
    await ask(s, 'subscribe', a.checkout_token);
    await ask(s, 'subscribe', b.checkout_token);
    await sleep(50);
    const got = collect<Update>(s, 'payment:update');
    expect(await ask(s, 'unsubscribe', a.checkout_token)).toEqual({ ok: true });
    expect(await ask(s, 'unsubscribe', 'never-subscribed')).toEqual({ ok: true });
    await commitEvent(t.platform.db, { type: 'payment.expired', merchantId, paymentId: a.id, data: { ...a, status: 'expired' } });
    await commitEvent(t.platform.db, { type: 'payment.expired', merchantId, paymentId: b.id, data: { ...b, status: 'expired' } });
    await until(() => got.length >= 1);
    await sleep(150);
    expect(got.map((u) => u.id)).toEqual([b.id]);
  });

  it('replays events missed during a drop under 2 minutes', async () => {
    const p = addPayment();
    const s = connect(t.url, { reconnection: false });
    const snapshot = next(s, 'payment:update');
    await ask(s, 'subscribe', p.checkout_token);
    await snapshot;
    const got = collect<Update>(s, 'payment:update');
    // The transport drops (not a deliberate disconnect), so the server keeps the session.
    const dropped = next(s, 'disconnect');
    s.io.engine.close();
    await dropped;
    await commitEvent(t.platform.db, { type: 'payment.partially_paid', merchantId, paymentId: p.id, data: { ...p, status: 'partially_paid' } });
    await sleep(300);
    expect(got).toHaveLength(0);
    s.connect();
    await next(s, 'connect');
    expect(s.recovered).toBe(true);
    await until(() => got.length >= 1);
    expect(got[0].type).toBe('payment.partially_paid');
  });

  it('replays a drop just under 2 minutes, and not one just over (spec 8)', async () => {
    const drop = async (gapMs: number) => {
      const p = addPayment();
      const s = connect(t.url, { reconnection: false });
      const snapshot = next(s, 'payment:update');
      await ask(s, 'subscribe', p.checkout_token);
      await snapshot;
      const got = collect<Update>(s, 'payment:update');
      const dropped = next(s, 'disconnect');
      s.io.engine.close();
      await dropped;
      await commitEvent(t.platform.db, { type: 'payment.partially_paid', merchantId, paymentId: p.id, data: { ...p, status: 'partially_paid' } });
      await sleep(200);
      // socket.io dates the drop and its recovery window by Date.now: the gap is made by moving it
      const realNow = Date.now.bind(Date);
      const clockShift = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + gapMs);
      try {
        s.connect();
        await next(s, 'connect');
        await sleep(300);
        return { recovered: s.recovered, types: got.map((u) => u.type) };
      } finally {
        clockShift.mockRestore();
      }
    };
    expect(await drop(RECOVERY_WINDOW_MS - 1_000)).toEqual({ recovered: true, types: ['payment.partially_paid'] });
    expect(await drop(RECOVERY_WINDOW_MS + 1_000)).toEqual({ recovered: false, types: [] });
    expect(RECOVERY_WINDOW_MS).toBe(2 * 60 * 1000);
  });

  it('serves the socket.io client at /socket.io/socket.io.min.js', async () => {
    const res = await fetch(`${t.url}/socket.io/socket.io.min.js`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('io');
  });

  it('works over long-polling too', async () => {
    const p = addPayment();
    const s = connect(t.url, { transports: ['polling'] });
    const got = collect<Update>(s, 'payment:update');
    const ack = await ask<{ ok: boolean }>(s, 'subscribe', p.checkout_token);
    expect(ack.ok).toBe(true);
    await until(() => got.length === 1);
    await commitEvent(t.platform.db, { type: 'payment.failed', merchantId, paymentId: p.id, data: { ...p, status: 'failed' } });
    await until(() => got.length === 2);
    expect(got.map((u) => u.type)).toEqual(['payment.snapshot', 'payment.failed']);
  });
});
