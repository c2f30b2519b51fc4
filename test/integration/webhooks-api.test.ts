// The deliveries API (spec 4.4 "Webhook and deliveries", CONTRACT /admin/deliveries): lists, one
// delivery with its history, redeliver, resolve, and the payment trail's deliveries.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { memberToken, Receiver } from '../harness/webhooks.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { appendEvent, type NewEvent } from '../../src/events/index.ts';
import { deliveries, deliveriesForPayment } from '../../src/webhooks/index.ts';

describeEachDb('webhook deliveries API', (h) => {
  let t: TestApp;
  let clock: ManualClock;
  let rx: Receiver;
  let acct: Account;

  beforeAll(async () => {
    clock = new ManualClock(new Date());
    t = await startTestApp(h.db(), { clock });
    t.platform.outbox.subscribe(t.services.webhooks.subscriber);
    rx = await Receiver.start();
  });
  afterAll(async () => { await t.close(); await rx.close(); });
  beforeEach(async () => {
    rx.got.length = 0;
    rx.behaviour = { status: 200, body: 'ok' };
    acct = await signupAccount(t.app);
    await inject('PUT', '/merchant/webhook?mode=test', tokenHeader(acct.accessToken), { url: rx.url });
    await inject('PUT', '/merchant/webhook', tokenHeader(acct.accessToken), { url: rx.url });
  });

  const inject = (method: 'GET' | 'PUT' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
    t.app.inject({ method, url, headers, remoteAddress: randomIp(), ...(payload ? { payload } : {}) });
  const owner = () => tokenHeader(acct.accessToken);
  const emit = (e: Partial<NewEvent> & { type: string }) => t.platform.db.transaction((tx) => appendEvent(tx, {
    livemode: false, merchantId: acct.merchant.id, paymentId: 'pay_a', data: { id: 'pay_a' }, at: clock.now(), ...e,
  }));
  const pump = async () => { await t.platform.outbox.drainNow(); await t.services.webhooks.worker.runDue(); };
  /** A delivery that failed all seven attempts. */
  const failedDelivery = async (): Promise<string> => {
    rx.behaviour = { status: 500 };
    await emit({ type: 'payment.failed' });
    await pump();
    for (const s of [60, 300, 1800, 7200, 21600, 86400]) { clock.advance(s * 1000); await pump(); }
    const [d] = await h.db().orm.select().from(deliveries).where(eq(deliveries.merchantId, acct.merchant.id));
    expect(d.status).toBe('failed');
    rx.behaviour = { status: 200, body: 'ok' };
    return d.id;
  };

  it('lists newest first for the asked mode, with a status filter and the limit applied', async () => {
    for (let i = 0; i < 3; i++) { await emit({ type: 'payment.detecting', data: { i } }); clock.advance(1000); }
    await emit({ type: 'payment.confirmed', livemode: true });
    await pump();
    const viewer = tokenHeader(await memberToken(t, acct.merchant.id, 'viewer'));
    const test = (await inject('GET', '/merchant/webhooks/deliveries?mode=test', viewer)).json();
    expect(test.limit).toBe(50);
    // every list answers the limit and offset it applied (spec 4.4); this one pages by `before` only
    expect(test.offset).toBe(0);
    expect((await inject('GET', '/merchant/webhooks/deliveries?mode=test&offset=2', viewer)).json()).toMatchObject({ offset: 0, deliveries: test.deliveries });
    expect(test.deliveries.map((d: { payload: string }) => JSON.parse(d.payload).data.i)).toEqual([2, 1, 0]);
    expect(test.deliveries[0]).not.toHaveProperty('history');
    const live = (await inject('GET', '/merchant/webhooks/deliveries', viewer)).json();
    expect(live.deliveries.map((d: { livemode: boolean }) => d.livemode)).toEqual([true]);
    const two = (await inject('GET', '/merchant/webhooks/deliveries?mode=test&limit=2', viewer)).json();
    expect(two).toMatchObject({ limit: 2 });
    expect(two.deliveries).toHaveLength(2);
    expect((await inject('GET', '/merchant/webhooks/deliveries?mode=test&limit=500', viewer)).json().limit).toBe(50);
    expect((await inject('GET', '/merchant/webhooks/deliveries?mode=test&status=failed', viewer)).json().deliveries).toEqual([]);
    expect((await inject('GET', '/merchant/webhooks/deliveries?mode=test&status=delivered', viewer)).json().deliveries).toHaveLength(3);
    const bad = await inject('GET', '/merchant/webhooks/deliveries?status=lost', viewer);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'status must be one of pending, sending, delivered, failed, resolved' });
  });

  it('pages the list by `before`: each page older than the last delivery shown, none twice or left out, new ones not shifting it', async () => {
    for (let i = 0; i < 5; i++) await emit({ type: 'payment.detecting', data: { i } });
    await pump();
    const viewer = tokenHeader(await memberToken(t, acct.merchant.id, 'viewer'));
    const list = async (q: string) => (await inject('GET', `/merchant/webhooks/deliveries?mode=test&limit=2${q}`, viewer)).json().deliveries as { id: string; payload: string }[];
    const order = (ds: { payload: string }[]) => ds.map((d) => JSON.parse(d.payload).data.i);
    const first = await list('');
    // The five share one created_at (the clock stood still): the id breaks the tie. A newer one
    // arriving between two pages goes on top, never into a later page.
    clock.advance(1000);
    await emit({ type: 'payment.detecting', data: { i: 'new' } });
    await pump();
    const second = await list(`&before=${first[1].id}`);
    const third = await list(`&before=${second[1].id}`);
    const whole = (await inject('GET', '/merchant/webhooks/deliveries?mode=test', viewer)).json().deliveries as { id: string; payload: string }[];
    expect([...first, ...second, ...third].map((d) => d.id)).toEqual(whole.filter((d) => JSON.parse(d.payload).data.i !== 'new').map((d) => d.id));
    expect(order(third)).toHaveLength(1);
    expect(await list(`&before=${third[0].id}`)).toEqual([]);
    // Filters apply to the pages too.
    expect(await list(`&before=${first[0].id}&status=failed`)).toEqual([]);
  });

  it('refuses a `before` that is no delivery of the account', async () => {
    const other = await signupAccount(t.app);
    await inject('PUT', '/merchant/webhook?mode=test', tokenHeader(other.accessToken), { url: rx.url });
    await t.platform.db.transaction((tx) => appendEvent(tx, { type: 'payment.detecting', livemode: false, merchantId: other.merchant.id, paymentId: 'pay_b', data: { id: 'pay_b' }, at: clock.now() }));
    await pump();
    const [theirs] = await h.db().orm.select().from(deliveries).where(eq(deliveries.merchantId, other.merchant.id));
    for (const before of [theirs.id, 'dlv_unknown', "x' or 1=1"]) {
      const res = await inject('GET', `/merchant/webhooks/deliveries?mode=test&before=${encodeURIComponent(before)}`, owner());
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'before must be the id of a delivery of this account' });
    }
  });

  it('shows one delivery with its full history, and 404 for an unknown id or another merchant\'s', async () => {
    rx.behaviour = { status: 500, body: 'down' };
    await emit({ type: 'payment.confirmed' });
    await pump();
    const [d] = await h.db().orm.select().from(deliveries).where(eq(deliveries.merchantId, acct.merchant.id));
    const res = await inject('GET', `/merchant/webhooks/deliveries/${d.id}`, owner());
    expect(res.statusCode).toBe(200);
    expect(res.json().delivery).toMatchObject({
      id: d.id, merchant_id: acct.merchant.id, livemode: false, target: 'account', url: rx.url, event_type: 'payment.confirmed',
      status: 'pending', attempts: 1, max_attempts: 7, last_status_code: 500, last_error: 'endpoint answered 500',
      history: [{ url: rx.url, status_code: 500, error: 'endpoint answered 500', response: 'down' }],
    });
    expect(res.json().delivery).not.toHaveProperty('delivered_at');
    const stranger = await signupAccount(t.app);
    for (const [who, id] of [[tokenHeader(stranger.accessToken), d.id], [owner(), 'dlv_nope']] as const) {
      const r = await inject('GET', `/merchant/webhooks/deliveries/${id}`, who);
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual({ error: 'not found' });
    }
  });

  it('redelivers: attempts back to 0, seven more tries, header restarts at 1, note of who asked', async () => {
    const id = await failedDelivery();
    // 33 hours later: fresh sign-ins
    const viewer = tokenHeader(await memberToken(t, acct.merchant.id, 'viewer'));
    const owner = () => tokenHeader(ownerToken);
    const ownerToken = await memberToken(t, acct.merchant.id, 'owner');
    const refused = await inject('POST', `/merchant/webhooks/deliveries/${id}/redeliver`, viewer);
    expect([refused.statusCode, refused.json()]).toEqual([403, { error: 'insufficient permissions' }]);
    // the account URL changed since the delivery gave up: the redelivery goes to the URL of now
    const now = `${rx.url}?after=redeliver`;
    expect((await inject('PUT', '/merchant/webhook?mode=test', owner(), { url: now })).statusCode).toBe(200);
    const res = await inject('POST', `/merchant/webhooks/deliveries/${id}/redeliver`, owner());
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ message: 'redelivery queued' });
    let d = (await inject('GET', `/merchant/webhooks/deliveries/${id}`, owner())).json().delivery;
    expect(d).toMatchObject({ status: 'pending', attempts: 0, max_attempts: 7, url: now });
    expect(d.history.at(-1)).toEqual({ at: expect.any(String), note: expect.stringMatching(/^redelivery requested by owner-usr_.*@example.com$/) });
    await pump();
    expect(rx.got.at(-1)!.headers).toMatchObject({ 'x-webhook-attempt': '1', 'x-webhook-id': id });
    d = (await inject('GET', `/merchant/webhooks/deliveries/${id}`, owner())).json().delivery;
    expect(d).toMatchObject({ status: 'delivered', attempts: 1, url: now });
    expect(rx.got.at(-1)!.url).toBe('/hook?after=redeliver');
    expect(d.history).toHaveLength(9);
    // spec 7: `not found` for an unknown delivery, and for another account's
    const stranger = await signupAccount(t.app);
    for (const [who, other] of [[owner(), 'dlv_nope'], [tokenHeader(stranger.accessToken), id]] as const) {
      const r = await inject('POST', `/merchant/webhooks/deliveries/${other}/redeliver`, who);
      expect([r.statusCode, r.json()], other).toEqual([404, { error: 'not found' }]);
    }
  });

  it('resolves only a failed delivery: resolved, resolved_at, note; 409 otherwise', async () => {
    await emit({ type: 'payment.confirmed' });
    await pump();
    const [ok] = await h.db().orm.select().from(deliveries).where(eq(deliveries.merchantId, acct.merchant.id));
    const refused = await inject('POST', `/merchant/webhooks/deliveries/${ok.id}/resolve`, owner(), {});
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ error: 'only a failed delivery can be resolved: this one is delivered' });
    await h.db().orm.delete(deliveries).where(eq(deliveries.id, ok.id));
    const id = await failedDelivery();
    const dev = tokenHeader(await memberToken(t, acct.merchant.id, 'developer'));
    const badNote = await inject('POST', `/merchant/webhooks/deliveries/${id}/resolve`, dev, { note: 7 });
    expect(badNote.statusCode).toBe(400);
    expect(badNote.json()).toEqual({ error: 'note must be a string of up to 500 characters' });
    const res = await inject('POST', `/merchant/webhooks/deliveries/${id}/resolve`, dev, { note: 'fulfilled by hand' });
    expect(res.statusCode).toBe(200);
    expect(res.json().delivery).toMatchObject({ id, status: 'resolved', resolution_note: 'fulfilled by hand', resolved_at: clock.now().toISOString() });
    expect(res.json().delivery.history.at(-1).note).toMatch(/^resolved by developer-.*: fulfilled by hand$/);
    expect((await inject('POST', `/merchant/webhooks/deliveries/${id}/resolve`, dev)).statusCode).toBe(409);
  });

  it('redelivers from any status (resolved, delivered, pending): pending with attempts 0, the resolution cleared; never resolves one not failed', async () => {
    const id = await failedDelivery();
    const owner = tokenHeader(await memberToken(t, acct.merchant.id, 'owner'));
    const get = async () => (await inject('GET', `/merchant/webhooks/deliveries/${id}`, owner)).json().delivery;
    const redeliver = async () => {
      const res = await inject('POST', `/merchant/webhooks/deliveries/${id}/redeliver`, owner);
      expect([res.statusCode, res.json()]).toEqual([202, { message: 'redelivery queued' }]);
    };
    expect((await inject('POST', `/merchant/webhooks/deliveries/${id}/resolve`, owner, { note: 'done by hand' })).statusCode).toBe(200);
    // resolved → pending
    await redeliver();
    let d = await get();
    expect(d).toMatchObject({ status: 'pending', attempts: 0, max_attempts: 7 });
    expect(d).not.toHaveProperty('resolved_at');
    expect(d).not.toHaveProperty('resolution_note');
    await pump();
    expect(await get()).toMatchObject({ status: 'delivered', attempts: 1 });
    // delivered → pending, posted again from attempt 1
    const posted = rx.got.length;
    await redeliver();
    expect(await get()).toMatchObject({ status: 'pending', attempts: 0 });
    await pump();
    expect(rx.got).toHaveLength(posted + 1);
    expect(rx.got.at(-1)!.headers).toMatchObject({ 'x-webhook-attempt': '1', 'x-webhook-id': id });
    expect(await get()).toMatchObject({ status: 'delivered', attempts: 1 });
    // pending (a failure with attempts left) → pending with attempts 0; it cannot be resolved
    rx.behaviour = { status: 500 };
    await redeliver();
    await pump();
    expect(await get()).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500 });
    const refused = await inject('POST', `/merchant/webhooks/deliveries/${id}/resolve`, owner, {});
    expect([refused.statusCode, refused.json()]).toEqual([409, { error: 'only a failed delivery can be resolved: this one is pending' }]);
    await redeliver();
    d = await get();
    expect(d).toMatchObject({ status: 'pending', attempts: 0 });
    expect(Date.parse(d.next_attempt_at)).toBe(clock.now().getTime());
  });

  it('a resolve racing a redeliver of a failed delivery ends pending: the resolve wins first or is refused', async () => {
    const id = await failedDelivery();
    const owner = tokenHeader(await memberToken(t, acct.merchant.id, 'owner'));
    const [resolved, redelivered] = await Promise.all([
      inject('POST', `/merchant/webhooks/deliveries/${id}/resolve`, owner, { note: 'race' }),
      inject('POST', `/merchant/webhooks/deliveries/${id}/redeliver`, owner),
    ]);
    expect(redelivered.statusCode).toBe(202);
    if (resolved.statusCode !== 200) expect([resolved.statusCode, resolved.json()]).toEqual([409, { error: 'only a failed delivery can be resolved: this one is pending' }]);
    const d = (await inject('GET', `/merchant/webhooks/deliveries/${id}`, owner)).json().delivery;
    expect(d).toMatchObject({ status: 'pending', attempts: 0 });
    expect(d).not.toHaveProperty('resolved_at');
    await pump();
    expect((await inject('GET', `/merchant/webhooks/deliveries/${id}`, owner)).json().delivery).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('lists failed deliveries across merchants for the operator', async () => {
    const id = await failedDelivery();
    expect((await inject('GET', '/admin/deliveries?status=failed', {})).statusCode).toBe(401);
    const res = await inject('GET', '/admin/deliveries?status=failed', { authorization: 'Bearer test-admin-token' });
    expect(res.statusCode).toBe(200);
    const got = res.json().deliveries as { id: string; status: string }[];
    expect(got.map((d) => d.id)).toContain(id);
    expect(got.every((d) => d.status === 'failed')).toBe(true);
  });

  it('gives a payment\'s deliveries with history for its trail', async () => {
    await emit({ type: 'payment.detecting', paymentId: 'pay_trail' });
    clock.advance(1000);
    await emit({ type: 'payment.confirmed', paymentId: 'pay_trail', webhookUrl: rx.url });
    await emit({ type: 'payment.confirmed', paymentId: 'pay_other' });
    await pump();
    const trail = await deliveriesForPayment(h.db().orm, 'pay_trail');
    expect(trail.map((d) => [d.event_type, d.target])).toEqual([['payment.detecting', 'account'], ['payment.confirmed', 'payment']]);
    expect(trail[0].history).toHaveLength(1);
  });

  it('gives a payment\'s deliveries of events raised in the same millisecond in the order the events were raised', async () => {
    // One deposit raises several events at once (spec 6.1: a late deposit completing a payment raises
    // payment.detecting and payment.late_deposit; paid and final at once, detecting then confirmed):
    // their deliveries share created_at, and the trail lists them as the payment's events list them.
    const types = ['payment.expired', 'payment.detecting', 'payment.late_deposit', 'payment.confirmed', 'payment.wrong_asset', 'payment.underpaid', 'payment.partially_paid', 'payment.failed'];
    await t.platform.db.transaction(async (tx) => {
      for (const type of types) await appendEvent(tx, { livemode: false, merchantId: acct.merchant.id, paymentId: 'pay_tie', data: { id: 'pay_tie' }, at: clock.now(), type });
    });
    await t.platform.outbox.drainNow();
    const trail = await deliveriesForPayment(h.db().orm, 'pay_tie');
    expect(trail.map((d) => d.event_type)).toEqual(types);
  });

  it('keeps only the latest 50 history entries', async () => {
    rx.behaviour = { status: 500 };
    await emit({ type: 'payment.confirmed' });
    await pump();
    const [d] = await h.db().orm.select().from(deliveries).where(eq(deliveries.merchantId, acct.merchant.id));
    for (let i = 0; i < 30; i++) {
      await inject('POST', `/merchant/webhooks/deliveries/${d.id}/redeliver`, owner());
      await pump();
    }
    const got = (await inject('GET', `/merchant/webhooks/deliveries/${d.id}`, owner())).json().delivery;
    expect(got.history).toHaveLength(50);
    expect(got.history.at(-1)).toMatchObject({ status_code: 500 });
    expect(got.history.at(-2)).toMatchObject({ note: `redelivery requested by ${acct.email}` });
  });
});
