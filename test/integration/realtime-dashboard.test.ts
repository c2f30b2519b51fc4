// Dashboard socket (spec 4.5, 5 "Socket authentication", 6.3): handshake refusals, session,
// refresh, expiry, revocation, suspension and role filtering, fed from the outbox.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { and, eq } from 'drizzle-orm';
import { Receiver } from '../harness/webhooks.ts';
import { events } from '../../src/events/index.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { merchants, sessions } from '../../src/accounts/index.ts';
import { deliveries } from '../../src/webhooks/index.ts';
import { newId } from '../../src/platform/ids.ts';
import { ask, closeSockets, collect, commitEvent, connect, fakePayment, memberToken, next, sleep, startSocketApp, until, type SocketApp } from './realtime-support.ts';

interface ConnectError extends Error { data?: { code?: string } }

describeEachDb('dashboard socket', (h) => {
  let t: SocketApp;
  let owner: Account;
  const clock = new ManualClock(new Date());
  beforeAll(async () => {
    t = await startSocketApp(h.db(), { clock });
    owner = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });
  afterEach(() => closeSockets());

  const dashboard = (token?: unknown) => connect(`${t.url}/merchant`, { reconnection: false, auth: token === undefined ? {} : { token } });

  async function refused(token?: unknown): Promise<ConnectError> {
    return next<ConnectError>(dashboard(token), 'connect_error');
  }

  it('refuses a handshake without a token, with a bad one, and with another kind of credential', async () => {
    for (const [token, code] of [[undefined, 'missing_token'], ['', 'missing_token'], ['not-a-token', 'invalid_token'],
      ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl', 'invalid_token'], [owner.testKey, 'wrong_kind'], [owner.liveKey, 'wrong_kind']] as const) {
      const err = await refused(token);
      expect(err.message).toBe('unauthorized');
      expect(err.data?.code, String(token)).toBe(code);
    }
  });

  // Spec 3: a suspended account gets 'a socket auth:error with code suspended'; spec 5's handshake
  // refusals are only missing_token, invalid_token and wrong_kind (a suspended member's token is none of them).
  it('ends the socket of a suspended account at its handshake with auth:error suspended, before any session or event', async () => {
    const other = await signupAccount(t.app);
    await t.platform.db.orm.update(merchants).set({ status: 'suspended' }).where(eq(merchants.id, other.merchant.id));
    const s = dashboard(other.accessToken);
    const heard: string[] = [];
    s.onAny((event) => heard.push(event));
    const refusedAt = next<ConnectError>(s, 'connect_error', 3000).then((e) => e.data?.code ?? e.message, () => null);
    const error = next<{ code: string }>(s, 'auth:error', 3000);
    const gone = next<string>(s, 'disconnect', 3000);
    expect(await error).toEqual({ code: 'suspended' });
    expect(await gone).toBe('io server disconnect');
    // an event of its merchant committed meanwhile never reaches it: it joined no room
    await commitEvent(t.platform.db, { type: 'merchant:update', merchantId: other.merchant.id, data: { ...other.merchant, status: 'suspended' } });
    await sleep(200);
    expect(heard).toEqual(['auth:error']);
    expect(await refusedAt).toBeNull();
  });

  it('sends the session on connect and refreshes it with a new token', async () => {
    const s = dashboard(owner.accessToken);
    const session = await next<Record<string, unknown>>(s, 'session');
    expect(session).toMatchObject({ user: { id: owner.user.id, email: owner.email }, role: 'owner', merchant_id: owner.merchant.id, recovered: false });
    expect(typeof session.expires_at).toBe('string');
    const fresh = await memberToken(t, owner.merchant.id, 'owner');
    expect(await ask(s, 'auth:refresh', 'garbage')).toEqual({ ok: false, error: 'invalid_token' });
    expect(await ask(s, 'auth:refresh', owner.testKey)).toEqual({ ok: false, error: 'wrong_kind' });
    // Another member's token cannot take the socket over.
    expect(await ask(s, 'auth:refresh', fresh.token)).toEqual({ ok: false, error: 'invalid_token' });
    clock.advance(60_000);
    const again = await t.services.accounts.tokens.issue({ userId: owner.user.id, merchantId: owner.merchant.id, sessionId: sessionOf(owner.accessToken), role: 'owner' }, clock.now());
    const ack = await ask<{ ok: boolean; session: { expires_at: string } }>(s, 'auth:refresh', again.token);
    expect(ack.ok).toBe(true);
    expect(ack.session.expires_at).toBe(again.expiresAt.toISOString());
  });

  it('ends the socket with token_expired when its token expires', async () => {
    const m = await memberToken(t, owner.merchant.id, 'viewer');
    // 300 ms of life left on the injected clock.
    clock.set(new Date(m.expiresAt.getTime() - 300));
    const s = dashboard(m.token);
    await next(s, 'session');
    const error = next<{ code: string }>(s, 'auth:error', 3000);
    const gone = next<string>(s, 'disconnect', 3000);
    expect(await error).toEqual({ code: 'token_expired' });
    expect(await gone).toBe('io server disconnect');
    clock.set(new Date());
  });

  it('ends sockets at once on sign-out, role change, removal and suspension', async () => {
    for (const reason of ['session_revoked', 'role_changed', 'removed']) {
      const m = await memberToken(t, owner.merchant.id, 'developer');
      const s = dashboard(m.token);
      await next(s, 'session');
      const error = next<{ code: string }>(s, 'auth:error');
      await commitEvent(t.platform.db, { type: 'session:revoked', merchantId: owner.merchant.id, data: { user_id: m.userId, session_ids: [m.sessionId], reason } });
      expect(await error).toEqual({ code: reason });
      await until(() => !s.connected);
    }
    const other = await signupAccount(t.app);
    const s = dashboard(other.accessToken);
    const bystander = dashboard(owner.accessToken);
    await Promise.all([next(s, 'session'), next(bystander, 'session')]);
    const error = next<{ code: string }>(s, 'auth:error');
    await commitEvent(t.platform.db, { type: 'merchant:update', merchantId: other.merchant.id, data: { ...other.merchant, status: 'suspended' } });
    expect(await error).toEqual({ code: 'suspended' });
    await until(() => !s.connected);
    expect(bystander.connected).toBe(true);
  });

  // The handshake reads the session before the socket joins its rooms: a removal or role change
  // committed in between was sent to rooms the socket was not in yet, and it lived on until its
  // token expired. Held here between the handshake's read and the joining.
  it('ends a socket whose member is removed or changed role while it connects', async () => {
    const authn = t.services.accounts.authn;
    const real = authn.user.bind(authn);
    const bystander = dashboard(owner.accessToken);
    await next(bystander, 'session');
    for (const [reason, change] of [
      ['removed', (id: string) => ({ method: 'DELETE' as const, url: `/merchant/users/${id}` })],
      ['role_changed', (id: string) => ({ method: 'PATCH' as const, url: `/merchant/users/${id}`, payload: { role: 'viewer' } })],
    ] as const) {
      const m = await memberToken(t, owner.merchant.id, 'developer');
      let checked!: () => void;
      const handshakeRead = new Promise<void>((r) => { checked = r; });
      let release!: () => void;
      const held = new Promise<void>((r) => { release = r; });
      authn.user = async (bearer) => {
        const auth = await real(bearer);
        if (bearer === m.token) { checked(); await held; }
        return auth;
      };
      try {
        const s = dashboard(m.token);
        const error = next<{ code: string }>(s, 'auth:error');
        await handshakeRead;
        const told = next<{ action: string }>(bystander, 'team:update');
        const res = await t.app.inject({ ...change(m.userId), headers: { authorization: `Bearer ${owner.accessToken}` } });
        expect(res.statusCode, reason).toBe(200);
        await told;
        await sleep(100);
        release();
        expect(await error, reason).toEqual({ code: reason });
        await until(() => !s.connected);
      } finally {
        authn.user = real;
        release();
      }
    }
    expect(bystander.connected).toBe(true);
  });

  it('sends each event only to the roles spec 6.3 names, test and live together', async () => {
    const roles = ['owner', 'developer', 'finance', 'viewer'] as const;
    const got: Record<string, string[]> = {};
    for (const role of roles) {
      const m = await memberToken(t, owner.merchant.id, role);
      const s = dashboard(m.token);
      await next(s, 'session');
      got[role] = [];
      s.onAny((event: string) => { if (event !== 'dashboard:update') got[role].push(event); });
    }
    const merchantId = owner.merchant.id;
    const p = fakePayment(merchantId);
    await commitEvent(t.platform.db, { type: 'payment.created', merchantId, paymentId: p.id, data: p });
    await commitEvent(t.platform.db, { type: 'payment.confirmed', merchantId, paymentId: p.id, livemode: true, data: { ...p, livemode: true } });
    for (const type of ['api_key:update', 'webhook:update', 'audit:entry', 'team:update', 'store:update', 'balance:update', 'webhook:delivery', 'affiliate:payout']) {
      await commitEvent(t.platform.db, { type, merchantId, data: { id: type } });
    }
    await commitEvent(t.platform.db, { type: 'settlement:update', merchantId, data: { id: 'set_1' } });
    // Another merchant's event reaches nobody here.
    await commitEvent(t.platform.db, { type: 'store:update', merchantId: 'mer_other', data: { id: 'x' } });
    await until(() => got.viewer.length >= 5);
    await sleep(200);
    const everyone = ['payment:update', 'payment:update', 'store:update', 'balance:update', 'webhook:delivery', 'settlement:update'];
    expect(got.owner).toEqual(['payment:update', 'payment:update', 'api_key:update', 'webhook:update', 'audit:entry', 'team:update', 'store:update', 'balance:update', 'webhook:delivery', 'affiliate:payout', 'settlement:update']);
    expect(got.developer).toEqual(['payment:update', 'payment:update', 'api_key:update', 'webhook:update', 'store:update', 'balance:update', 'webhook:delivery', 'settlement:update']);
    expect(got.finance).toEqual(['payment:update', 'payment:update', 'store:update', 'balance:update', 'webhook:delivery', 'affiliate:payout', 'settlement:update']);
    expect(got.viewer).toEqual(everyone);
  });

  // One event the router cannot read (a notification without its data) is logged and skipped: the
  // events after it in the batch, and the other namespaces' (the CLI's /listen), still go out.
  it('delivers the rest of a batch when one of its events cannot be routed', async () => {
    const m = await memberToken(t, owner.merchant.id, 'viewer');
    const s = dashboard(m.token);
    await next(s, 'session');
    const update = next<Record<string, unknown>>(s, 'payment:update');
    const p = fakePayment(owner.merchant.id);
    const stored = (seq: number, type: string, data: unknown) => ({
      seq, id: newId('evt'), type, merchantId: owner.merchant.id, paymentId: type.startsWith('payment.') ? p.id : null, livemode: false, data, webhookUrl: null, createdAt: clock.now(),
    });
    expect(() => t.services.realtime.deliver([stored(1, 'notification', null), stored(2, 'payment.created', p)])).not.toThrow();
    expect(await update).toMatchObject({ type: 'payment.created', id: p.id });
  });

  it('sends payment:update with merchant_id and the whole payment, and dashboard figures', async () => {
    const m = await memberToken(t, owner.merchant.id, 'viewer');
    const s = dashboard(m.token);
    await next(s, 'session');
    const update = next<Record<string, unknown>>(s, 'payment:update');
    const figures = next<Record<string, unknown>>(s, 'dashboard:update', 5000);
    const p = fakePayment(owner.merchant.id);
    await commitEvent(t.platform.db, { type: 'payment.created', merchantId: owner.merchant.id, paymentId: p.id, data: p });
    const u = await update;
    expect(u).toMatchObject({ type: 'payment.created', merchant_id: owner.merchant.id, id: p.id });
    expect((u.payment as Record<string, unknown>).metadata).toEqual({ customer: 'c-1' });
    const f = await figures;
    expect(f.livemode).toBe(false);
    expect(f).toHaveProperty('periods');
  });

  /** A socket signed in with `token` whose connection then dropped (socket.io may recover it within 2 minutes). */
  async function droppedAfterSession(token: string): Promise<ReturnType<typeof connect>> {
    const s = connect(`${t.url}/merchant`, { reconnection: false, auth: { token } });
    await next(s, 'session');
    const dropped = next(s, 'disconnect');
    s.io.engine.close();
    await dropped;
    return s;
  }

  /** A new account whose test webhook points at `rx`, which answers 500 until told otherwise. */
  async function accountFailingAt(rx: Receiver): Promise<Account> {
    rx.behaviour = { status: 500, body: 'down' };
    const acct = await signupAccount(t.app);
    const put = await t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: { authorization: `Bearer ${acct.testKey}` }, payload: { url: rx.url } });
    expect(put.statusCode).toBe(200);
    return acct;
  }

  it('sends webhook:delivery once for each attempt and each redelivery, as committed, storing no event', async () => {
    const rx = await Receiver.start();
    try {
      const acct = await accountFailingAt(rx);
      const s = dashboard((await memberToken(t, acct.merchant.id, 'viewer')).token);
      await next(s, 'session');
      const got = collect<Record<string, unknown>>(s, 'webhook:delivery');
      const ping = await t.app.inject({ method: 'POST', url: '/v1/webhook/test', headers: { authorization: `Bearer ${acct.testKey}` } });
      const id = ping.json().delivery.id as string;
      await t.services.webhooks.worker.runDue();
      await until(() => got.length === 1);
      expect(got[0]).toMatchObject({ id, event_type: 'ping', status: 'pending', attempts: 1, last_status_code: 500, last_error: 'endpoint answered 500' });
      expect(got[0]).not.toHaveProperty('history');
      const again = await t.app.inject({ method: 'POST', url: `/merchant/webhooks/deliveries/${id}/redeliver`, headers: { authorization: `Bearer ${acct.accessToken}` } });
      expect(again.statusCode).toBe(202);
      rx.behaviour = { status: 200, body: 'ok' };
      await t.services.webhooks.worker.runDue();
      await until(() => got.length === 3);
      await sleep(200);
      expect(got.map((d) => [d.id, d.status, d.attempts])).toEqual([[id, 'pending', 1], [id, 'pending', 0], [id, 'delivered', 1]]);
      const stored = await t.platform.db.orm.select().from(events).where(and(eq(events.merchantId, acct.merchant.id), eq(events.type, 'webhook:delivery')));
      expect(stored).toEqual([]);
    } finally {
      await rx.close();
    }
  });

  it('pushes the dashboard figures when a delivery gives up, is resolved or redelivered (failed_webhooks)', async () => {
    const rx = await Receiver.start();
    try {
      const acct = await accountFailingAt(rx);
      const ping = await t.app.inject({ method: 'POST', url: '/v1/webhook/test', headers: { authorization: `Bearer ${acct.testKey}` } });
      const id = ping.json().delivery.id as string;
      await t.services.webhooks.worker.runDue();
      const s = dashboard((await memberToken(t, acct.merchant.id, 'viewer')).token);
      await next(s, 'session');
      const figures = collect<Record<string, unknown>>(s, 'dashboard:update');
      // the 7th attempt is due and fails: the delivery gives up
      await t.platform.db.orm.update(deliveries).set({ attempts: 6, nextAttemptAt: new Date(0) }).where(eq(deliveries.id, id));
      await t.services.webhooks.worker.runDue();
      await until(() => figures.some((f) => f.livemode === false && f.failed_webhooks === 1));
      // closed by the team: no longer counted
      const headers = { authorization: `Bearer ${acct.accessToken}` };
      expect((await t.app.inject({ method: 'POST', url: `/merchant/webhooks/deliveries/${id}/resolve`, headers, payload: {} })).statusCode).toBe(200);
      await until(() => figures.at(-1)?.failed_webhooks === 0, 5000);
      // a delivery that gave up and is redelivered is no longer counted either
      await t.platform.db.orm.update(deliveries).set({ status: 'failed' }).where(eq(deliveries.id, id));
      expect((await t.app.inject({ method: 'GET', url: '/merchant/dashboard?mode=test', headers })).json().failed_webhooks).toBe(1);
      figures.length = 0;
      expect((await t.app.inject({ method: 'POST', url: `/merchant/webhooks/deliveries/${id}/redeliver`, headers })).statusCode).toBe(202);
      await until(() => figures.some((f) => f.livemode === false && f.failed_webhooks === 0), 5000);
    } finally {
      await rx.close();
    }
  });

  // Spec 5: removal (like sign-out, role change, suspension) ends dashboard sockets at once. A socket
  // that dropped just before and comes back within the recovery window must not be handed the
  // events it missed, on the wire, before its handshake is refused.
  it('sends a recovering socket of a removed member none of its missed events before refusing it', async () => {
    const m = await memberToken(t, owner.merchant.id, 'developer');
    const s = await droppedAfterSession(m.token);
    const removed = await t.app.inject({ method: 'DELETE', url: `/merchant/users/${m.userId}`, headers: { authorization: `Bearer ${owner.accessToken}` } });
    expect(removed.statusCode).toBe(200);
    await commitEvent(t.platform.db, { type: 'store:update', merchantId: owner.merchant.id, data: { id: 'sto_after_removal' } });
    await sleep(200);
    // what reaches the client's transport, before socket.io-client would buffer or drop it
    const wire: string[] = [];
    s.io.once('open', () => s.io.engine.on('packet', (p: { data?: unknown }) => wire.push(String(p.data))));
    const refusedWith = next<ConnectError>(s, 'connect_error', 3000);
    s.connect();
    expect((await refusedWith).data?.code).toBe('invalid_token');
    await sleep(100);
    expect(wire.filter((p) => p.includes('sto_after_removal') || p.includes('auth:error'))).toEqual([]);
  });

  it('replays nothing to a member who comes back in another role: the missed events were chosen for the old one', async () => {
    const m = await memberToken(t, owner.merchant.id, 'owner');
    const s = await droppedAfterSession(m.token);
    // made a viewer (its sessions end), then signed in again as one; owners-only events meanwhile
    const changed = await t.app.inject({ method: 'PATCH', url: `/merchant/users/${m.userId}`, headers: { authorization: `Bearer ${owner.accessToken}` }, payload: { role: 'viewer' } });
    expect(changed.statusCode).toBe(200);
    await commitEvent(t.platform.db, { type: 'audit:entry', merchantId: owner.merchant.id, data: { id: 'aud_for_owners' } });
    await sleep(200);
    const sessionId = newId('ses');
    const now = t.platform.clock.now();
    await t.platform.db.orm.insert(sessions).values({ id: sessionId, userId: m.userId, merchantId: owner.merchant.id, createdAt: now, expiresAt: new Date(now.getTime() + 86400_000) });
    const viewer = await t.services.accounts.tokens.issue({ userId: m.userId, merchantId: owner.merchant.id, sessionId, role: 'viewer' }, now);
    const wire: string[] = [];
    s.io.once('open', () => s.io.engine.on('packet', (p: { data?: unknown }) => wire.push(String(p.data))));
    s.auth = { token: viewer.token };
    const session = next<{ role: string; recovered: boolean }>(s, 'session');
    s.connect();
    expect(await session).toMatchObject({ role: 'viewer', recovered: false });
    await sleep(100);
    expect(wire.filter((p) => p.includes('aud_for_owners') || p.includes('role_changed'))).toEqual([]);
  });

  it('replays missed dashboard events after a short drop and says so in the session', async () => {
    const s = await droppedAfterSession(owner.accessToken);
    await commitEvent(t.platform.db, { type: 'store:update', merchantId: owner.merchant.id, data: { id: 'sto_missed' } });
    await sleep(200);
    const session = next<{ recovered: boolean }>(s, 'session');
    const store = next<{ id: string }>(s, 'store:update');
    s.connect();
    expect((await session).recovered).toBe(true);
    expect(await store).toEqual({ id: 'sto_missed' });
  });
});

function sessionOf(jwt: string): string {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).sid as string;
}
