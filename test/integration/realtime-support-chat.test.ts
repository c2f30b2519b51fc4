// Support chat in real time (CONTRACT.md "Support chat", spec 6.3): messages, edits and read marks
// reach the merchant's dashboard sockets and the operator's socket (namespace /admin, ADMIN_TOKEN);
// typing is relayed both ways and never to whoever typed.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { startTestApp } from '../harness/app.ts';
import { ADMIN_MAX_FAILURES } from '../../src/admin/guard.ts';
import { ask, closeSockets, collect, connect, memberToken, next, sleep, startSocketApp, until, type SocketApp } from './realtime-support.ts';

interface ConnectError extends Error { data?: { code?: string } }
const ADMIN_TOKEN = 'test-admin-token';

describeEachDb('support chat sockets', (h) => {
  let t: SocketApp;
  let owner: Account;
  beforeAll(async () => {
    t = await startSocketApp(h.db());
    owner = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });
  afterEach(() => closeSockets());

  const dashboard = async (token: string) => {
    const s = connect(`${t.url}/merchant`, { auth: { token } });
    await next(s, 'session');
    return s;
  };
  const operator = async () => {
    const s = connect(`${t.url}/admin`, { auth: { token: ADMIN_TOKEN } });
    await next(s, 'connect');
    return s;
  };

  it('refuses the operator socket without ADMIN_TOKEN or with a wrong one', async () => {
    for (const [auth, code] of [[{}, 'missing_token'], [{ token: '' }, 'missing_token'], [{ token: 'wrong' }, 'invalid_token'], [{ token: owner.accessToken }, 'invalid_token']] as const) {
      const err = await next<ConnectError>(connect(`${t.url}/admin`, { reconnection: false, auth }), 'connect_error');
      expect(err.message).toBe('unauthorized');
      expect(err.data?.code).toBe(code);
    }
  });

  it('sends messages, edits and read marks to every role of the merchant and to the operator, with merchant_id', async () => {
    const viewer = await memberToken(t, owner.merchant.id, 'viewer');
    const sockets = await Promise.all([dashboard(owner.accessToken), dashboard(viewer.token)]);
    const ops = await operator();
    const got = sockets.map((s) => ({ msg: collect(s, 'support:message'), upd: collect(s, 'support:message:update'), read: collect(s, 'support:read') }));
    const opMsg = collect<Record<string, unknown>>(ops, 'support:message');
    const opUpd = collect<Record<string, unknown>>(ops, 'support:message:update');
    const opRead = collect<Record<string, unknown>>(ops, 'support:read');
    const posted = await t.app.inject({ method: 'POST', url: '/merchant/support/messages', headers: tokenHeader(owner.accessToken), payload: { body: 'hello' }, remoteAddress: randomIp() });
    const m = posted.json().message;
    await t.app.inject({ method: 'DELETE', url: `/merchant/support/messages/${m.id}`, headers: tokenHeader(owner.accessToken) });
    const mark = (await t.app.inject({ method: 'POST', url: '/merchant/support/read', headers: tokenHeader(viewer.token) })).json();
    const reply = (await t.app.inject({ method: 'POST', url: `/admin/support/${owner.merchant.id}/messages`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { body: 'hi!' } })).json().message;
    await until(() => got.every((g) => g.msg.length === 2 && g.upd.length === 1 && g.read.length === 1) && opMsg.length === 2 && opUpd.length === 1 && opRead.length === 1);
    for (const g of got) {
      expect(g.msg).toEqual([m, reply]);
      expect(g.upd[0]).toMatchObject({ id: m.id, body: '', deleted_at: expect.any(String) });
      expect(g.read[0]).toEqual(mark);
    }
    expect(opMsg).toEqual([m, reply]);
    expect(opUpd[0]).toMatchObject({ id: m.id, merchant_id: owner.merchant.id, body: '' });
    expect(opRead[0]).toEqual({ merchant_id: owner.merchant.id, ...mark });
  });

  it('relays a member\'s typing to the other members and the operator, never back to the member', async () => {
    const dev = await memberToken(t, owner.merchant.id, 'developer');
    const other = await signupAccount(t.app);
    const [typist, sameUser, colleague, stranger] = await Promise.all([
      dashboard(owner.accessToken), dashboard(owner.accessToken), dashboard(dev.token), dashboard(other.accessToken),
    ]);
    const ops = await operator();
    const heard = { typist: collect(typist, 'support:typing'), sameUser: collect(sameUser, 'support:typing'), colleague: collect(colleague, 'support:typing'), stranger: collect(stranger, 'support:typing') };
    const opHeard = collect(ops, 'support:typing');
    typist.emit('support:typing', { typing: true });
    typist.emit('support:typing', { typing: true }); // repeated within a second: passed on once
    typist.emit('support:typing', { typing: 'yes' }); // not a boolean: ignored
    typist.emit('support:typing', { typing: false });
    await until(() => heard.colleague.length === 2 && opHeard.length === 2);
    await sleep(100);
    expect(heard.colleague).toEqual([{ side: 'merchant', name: owner.email, typing: true }, { side: 'merchant', name: owner.email, typing: false }]);
    expect(opHeard).toEqual([
      { merchant_id: owner.merchant.id, side: 'merchant', name: owner.email, typing: true },
      { merchant_id: owner.merchant.id, side: 'merchant', name: owner.email, typing: false },
    ]);
    expect(heard.typist).toEqual([]);
    expect(heard.sameUser).toEqual([]);
    expect(heard.stranger).toEqual([]);
  });

  it('relays the operator\'s typing to every member of that merchant only, signed with its name or `Support`', async () => {
    const other = await signupAccount(t.app);
    const [mine, theirs] = await Promise.all([dashboard(owner.accessToken), dashboard(other.accessToken)]);
    const ops = await operator();
    const otherOps = await operator();
    const heard = collect(mine, 'support:typing');
    const notHeard = collect(theirs, 'support:typing');
    const opsHeard = collect(ops, 'support:typing');
    const otherOpsHeard = collect(otherOps, 'support:typing');
    expect(await ask(ops, 'support:typing', { merchant_id: owner.merchant.id, typing: true, name: 'Ada' })).toEqual({ ok: true });
    expect(await ask(ops, 'support:typing', { merchant_id: owner.merchant.id, typing: false })).toEqual({ ok: true });
    expect(await ask(ops, 'support:typing', { typing: true })).toEqual({ ok: false, error: 'merchant_id is required' });
    expect(await ask(ops, 'support:typing', { merchant_id: owner.merchant.id })).toEqual({ ok: false, error: 'typing (true or false) is required' });
    await until(() => heard.length === 2 && otherOpsHeard.length === 2);
    await sleep(100);
    expect(heard).toEqual([{ side: 'support', name: 'Ada', typing: true }, { side: 'support', name: 'Support', typing: false }]);
    expect(otherOpsHeard[0]).toEqual({ merchant_id: owner.merchant.id, side: 'support', name: 'Ada', typing: true });
    expect(opsHeard).toEqual([]);
    expect(notHeard).toEqual([]);
  });

  it('tells the others typing stopped when a socket goes away while typing (a closed tab, an ended session)', async () => {
    const [dev, viewer] = [await memberToken(t, owner.merchant.id, 'developer'), await memberToken(t, owner.merchant.id, 'viewer')];
    const [typist, idle, colleague] = await Promise.all([dashboard(owner.accessToken), dashboard(viewer.token), dashboard(dev.token)]);
    const [ops, otherOps] = [await operator(), await operator()];
    const heard = collect(colleague, 'support:typing');
    const opsHeard = collect(otherOps, 'support:typing');
    typist.emit('support:typing', { typing: true });
    expect(await ask(ops, 'support:typing', { merchant_id: owner.merchant.id, typing: true, name: 'Ada' })).toEqual({ ok: true });
    await until(() => heard.length === 2 && opsHeard.length === 2);
    // Gone while typing: each is told to have stopped, signed as before; a socket that was not typing says nothing.
    idle.close();
    typist.close();
    ops.close();
    await until(() => heard.length === 4 && opsHeard.length === 4);
    await sleep(100);
    const stopped = [{ side: 'merchant', name: owner.email, typing: false }, { side: 'support', name: 'Ada', typing: false }];
    expect(heard.slice(2)).toEqual(expect.arrayContaining(stopped));
    expect(heard).toHaveLength(4);
    expect(opsHeard.slice(2)).toEqual(expect.arrayContaining(stopped.map((x) => ({ merchant_id: owner.merchant.id, ...x }))));
    expect(opsHeard).toHaveLength(4);
  });

  /** An operator's socket that heard a message of `a` (so it has an offset to come back from), then dropped. */
  async function droppedOperator(a: Account) {
    const s = connect(`${t.url}/admin`, { reconnection: false, auth: { token: ADMIN_TOKEN } });
    await next(s, 'connect');
    const heard = next(s, 'support:message');
    await post(a, 'before the drop');
    await heard;
    const dropped = next(s, 'disconnect');
    s.io.engine.close();
    await dropped;
    return s;
  }
  const post = async (a: Account, body: string): Promise<{ id: string }> => {
    const res = await t.app.inject({ method: 'POST', url: '/merchant/support/messages', headers: tokenHeader(a.accessToken), payload: { body }, remoteAddress: randomIp() });
    expect(res.statusCode).toBe(201);
    return res.json().message as { id: string };
  };

  // Spec 5: a credential that no longer passes hears nothing more. An operator's socket coming back
  // within the recovery window with a token that is not ADMIN_TOKEN (any more) must not be handed the
  // messages it missed, on the wire, before its handshake is refused.
  it('sends a recovering operator socket with a wrong token none of its missed messages before refusing it', async () => {
    const a = await signupAccount(t.app);
    const s = await droppedOperator(a);
    const missed = await post(a, 'while the operator was away');
    await sleep(200);
    // what reaches the client's transport, before socket.io-client would buffer or drop it
    const wire: string[] = [];
    s.io.once('open', () => s.io.engine.on('packet', (p: { data?: unknown }) => wire.push(String(p.data))));
    s.auth = { token: 'no-longer-the-admin-token' };
    const refusedWith = next<ConnectError>(s, 'connect_error', 3000);
    s.connect();
    expect((await refusedWith).data?.code).toBe('invalid_token');
    await sleep(100);
    expect(wire.filter((p) => p.includes(missed.id))).toEqual([]);
  });

  it('replays the messages an operator socket missed when it comes back with ADMIN_TOKEN', async () => {
    const a = await signupAccount(t.app);
    const s = await droppedOperator(a);
    const missed = await post(a, 'while the operator was away');
    await sleep(200);
    const got = collect<{ id: string }>(s, 'support:message');
    const back = next(s, 'connect');
    s.connect();
    await back;
    await until(() => got.length === 1);
    expect(s.recovered).toBe(true);
    await sleep(100);
    expect(got.map((m) => m.id)).toEqual([missed.id]);
  });
});

describeEachDb('support chat sockets without ADMIN_TOKEN', (h) => {
  it('has no operator namespace at all', async () => {
    const t = await startTestApp(h.db(), { env: { ADMIN_TOKEN: '' } });
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as { port: number };
      const err = await next<Error>(connect(`http://127.0.0.1:${port}/admin`, { reconnection: false, auth: { token: 'anything' } }), 'connect_error');
      expect(err.message).toBe('Invalid namespace');
    } finally {
      closeSockets();
      await t.close();
    }
  });
});

// The operator API's limit on wrong admin tokens (README: ADMIN_MAX_FAILURES a minute from one
// address, then 429 for the rest of the minute, the right token too) holds for the socket's handshake
// as well, on the same count: a wrong token over HTTP or over a socket is one failure of that address.
describeEachDb('operator socket: wrong admin tokens share the operator API limit', (h) => {
  const HALF = ADMIN_MAX_FAILURES / 2;
  let t: SocketApp | null = null;
  afterEach(async () => {
    closeSockets();
    await t?.close();
    t = null;
  });

  const handshake = async (url: string, token: string, headers: Record<string, string> = {}) => {
    const s = connect(`${url}/admin`, { reconnection: false, auth: { token }, extraHeaders: headers });
    const r = await Promise.race([next(s, 'connect').then(() => 'connected'), next<ConnectError>(s, 'connect_error').then((e) => e.data?.code)]);
    s.close();
    return r;
  };
  const adminGet = (url: string, token: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/admin/support`, { headers: { authorization: `Bearer ${token}`, ...headers } });

  it('refuses the wrong handshake past the limit of a minute `rate_limited`, and the right token too', async () => {
    t = await startSocketApp(h.db());
    for (let i = 0; i < ADMIN_MAX_FAILURES; i++) expect(await handshake(t.url, `wrong-${i}`)).toBe('invalid_token');
    const err = await next<ConnectError>(connect(`${t.url}/admin`, { reconnection: false, auth: { token: 'wrong-last' } }), 'connect_error');
    expect(err.message).toBe('unauthorized');
    expect(err.data?.code).toBe('rate_limited');
    expect(await handshake(t.url, ADMIN_TOKEN)).toBe('rate_limited');
    // The same address is over the limit on the operator API too.
    const res = await adminGet(t.url, ADMIN_TOKEN);
    expect(res.status).toBe(429);
    expect((await res.json()).error).toBe('rate limit exceeded');
  });

  it('does not count handshakes and requests that give no token (they guess nothing)', async () => {
    t = await startSocketApp(h.db());
    for (let i = 0; i < ADMIN_MAX_FAILURES; i++) {
      expect(await handshake(t.url, '')).toBe('missing_token');
      expect((await fetch(`${t.url}/admin/support`)).status).toBe(401);
    }
    expect(await handshake(t.url, ADMIN_TOKEN)).toBe('connected');
    expect((await adminGet(t.url, ADMIN_TOKEN)).status).toBe(200);
  });

  it('adds wrong tokens over HTTP and over the socket into one count', async () => {
    t = await startSocketApp(h.db());
    for (let i = 0; i < HALF; i++) expect((await adminGet(t.url, `wrong-${i}`)).status).toBe(401);
    for (let i = 0; i < HALF; i++) expect(await handshake(t.url, `wrong-${i}`)).toBe('invalid_token');
    expect(await handshake(t.url, ADMIN_TOKEN)).toBe('rate_limited');
    expect((await adminGet(t.url, ADMIN_TOKEN)).status).toBe(429);
  });

  it('TRUST_PROXY=1: a forged left-most X-Forwarded-For entry does not escape the count', async () => {
    t = await startSocketApp(h.db(), { env: { TRUST_PROXY: '1' } });
    const via = (forged: string) => ({ 'x-forwarded-for': `${forged}, 198.51.100.7` });
    for (let i = 0; i < HALF; i++) expect((await adminGet(t.url, 'wrong', via(`203.0.113.${i}`))).status).toBe(401);
    for (let i = 0; i < HALF; i++) expect(await handshake(t.url, 'wrong', via(`203.0.113.${100 + i}`))).toBe('invalid_token');
    expect(await handshake(t.url, ADMIN_TOKEN, via('203.0.113.250'))).toBe('rate_limited');
    expect((await adminGet(t.url, ADMIN_TOKEN, via('203.0.113.251'))).status).toBe(429);
    // The client is the address the proxy appended: another client behind it is not refused.
    expect(await handshake(t.url, ADMIN_TOKEN, { 'x-forwarded-for': '198.51.100.8' })).toBe('connected');
  });
});
