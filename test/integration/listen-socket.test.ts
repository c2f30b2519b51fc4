// The /listen socket of `gateway listen` seen from a plain socket.io client: what a connection that
// drops and comes back within the recovery window is handed, and when.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { LISTEN_EVENT, LISTEN_NAMESPACE, LISTEN_READY, type ListenedEvent } from '../../src/listen/index.ts';
import { closeSockets, collect, commitEvent, connect, fakePayment, next, sleep, startSocketApp, type SocketApp } from './realtime-support.ts';

interface ConnectError extends Error { data?: { message?: string } }

describeEachDb('listen socket', (h) => {
  let t: SocketApp;
  let acct: Account;
  beforeAll(async () => {
    t = await startSocketApp(h.db());
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });
  afterEach(() => closeSockets());

  const listener = (apiKey: string) => connect(`${t.url}${LISTEN_NAMESPACE}`, { reconnection: false, auth: { apiKey } });

  async function secondTestKey(a: Account): Promise<{ secret: string; id: string }> {
    const res = await t.app.inject({ method: 'POST', url: '/merchant/api-keys?mode=test', headers: tokenHeader(a.accessToken), payload: {} });
    expect(res.statusCode).toBe(201);
    return { secret: res.json().secret as string, id: res.json().api_key.id as string };
  }

  /** Drops the socket's transport (not a client disconnect: the server keeps its state for recovery). */
  async function drop(s: ReturnType<typeof listener>): Promise<void> {
    const dropped = next(s, 'disconnect');
    s.io.engine.close();
    await dropped;
  }

  /**
   * A new account's CLI (its first test key) that dropped, while another CLI of the account (a
   * second key) stays: the events of the gap are emitted to it (and kept for recovery).
   */
  async function droppedBesideAnother() {
    const a = await signupAccount(t.app);
    const other = await secondTestKey(a);
    const staying = listener(other.secret);
    await next(staying, LISTEN_READY);
    const s = listener(a.testKey);
    await next(s, LISTEN_READY);
    await drop(s);
    return { a, staying, s };
  }

  // Spec 7: revocation is immediate. A CLI that dropped just before its key was revoked and comes
  // back within the recovery window must not be handed the events it missed, on the wire, before
  // its handshake is refused.
  it('sends a recovering socket of a revoked key none of its missed events before refusing it', async () => {
    const { a, staying, s } = await droppedBesideAnother();
    const revoked = await t.app.inject({ method: 'DELETE', url: `/merchant/api-keys/${a.testKeyId}`, headers: tokenHeader(a.accessToken) });
    expect(revoked.statusCode).toBe(200);
    const heard = next<ListenedEvent>(staying, LISTEN_EVENT);
    await commitEvent(t.platform.db, { type: 'payment.detecting', merchantId: a.merchant.id, data: fakePayment(a.merchant.id, { id: 'pay_after_revocation' }) });
    await t.platform.outbox.drainNow();
    expect((await heard).body).toContain('pay_after_revocation');
    // what reaches the client's transport, before socket.io-client would buffer or drop it
    const wire: string[] = [];
    s.io.once('open', () => s.io.engine.on('packet', (p: { data?: unknown }) => wire.push(String(p.data))));
    const refusedWith = next<ConnectError>(s, 'connect_error', 3000);
    s.connect();
    expect((await refusedWith).message).toBe('invalid api key');
    await sleep(100);
    expect(wire.filter((p) => p.includes('pay_after_revocation'))).toEqual([]);
  });

  it('replays the missed events to the same key coming back, in order, before anything new', async () => {
    const { a, staying, s } = await droppedBesideAnother();
    const heard = collect<ListenedEvent>(staying, LISTEN_EVENT);
    for (const id of ['pay_missed_1', 'pay_missed_2']) await commitEvent(t.platform.db, { type: 'payment.detecting', merchantId: a.merchant.id, data: fakePayment(a.merchant.id, { id }) });
    await t.platform.outbox.drainNow();
    const end = Date.now() + 5000;
    while (heard.length < 2 && Date.now() < end) await sleep(10);
    const got = collect<ListenedEvent>(s, LISTEN_EVENT);
    const ready = next(s, LISTEN_READY);
    s.connect();
    await ready;
    expect(s.recovered).toBe(true);
    expect(got.map((e) => JSON.parse(e.body).data.id)).toEqual(['pay_missed_1', 'pay_missed_2']);
  });

  // Spec 8: a gap under 2 minutes replays missed events. A CLI alone on its account is in no room
  // while it is away: the events of the gap must still be kept for it.
  it('replays the events missed by the only CLI of the account during a short drop', async () => {
    const a = await signupAccount(t.app);
    const s = listener(a.testKey);
    await next(s, LISTEN_READY);
    // a dashboard of the account (no CLI) tells when the batch has been emitted: an event emitted
    // while the CLI's reconnection is in its handshake would reach neither it nor its recovery
    const dashboard = connect(`${t.url}/merchant`, { reconnection: false, auth: { token: a.accessToken } });
    await next(dashboard, 'connect');
    await drop(s);
    const emitted = next(dashboard, 'payment:update');
    await commitEvent(t.platform.db, { type: 'payment.detecting', merchantId: a.merchant.id, data: fakePayment(a.merchant.id, { id: 'pay_alone_missed' }) });
    await t.platform.outbox.drainNow();
    await emitted;
    const got = collect<ListenedEvent>(s, LISTEN_EVENT);
    const ready = next(s, LISTEN_READY);
    s.connect();
    await ready;
    expect(s.recovered).toBe(true);
    expect(got.map((e) => JSON.parse(e.body).data.id)).toEqual(['pay_alone_missed']);
  });
});
