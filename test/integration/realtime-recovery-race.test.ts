// Connection-state recovery's handshake gap, in every namespace: an event emitted after socket.io
// restored a returning connection's session (and read what it missed) but before the connection
// joined its namespace went to a socket the adapter could not reach yet, and was in no recovery: it
// was lost. The gap is opened deterministically by a middleware of the test's own, run after the
// namespace's (as its handshake would be awaiting a database read), which emits as events are
// emitted: to the rooms the connection came back in, and to a room it is not in.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Server, type Namespace } from 'socket.io';
import type { Socket as ClientSocket } from 'socket.io-client';
import { RECOVERY_WINDOW_MS, SOCKET_PATH } from '../../src/realtime/events.ts';
import { setUpCheckoutNamespace, paymentRoom } from '../../src/realtime/checkout-namespace.ts';
import { MerchantSockets, merchantRoom } from '../../src/realtime/merchant-namespace.ts';
import { OPERATOR_NAMESPACE, OPERATOR_ROOM, setUpOperatorNamespace } from '../../src/realtime/operator-namespace.ts';
import { LISTEN_EVENT, LISTEN_NAMESPACE, LISTEN_READY, listenExtension, type ListenedEvent } from '../../src/listen/index.ts';
import type { AccountsService, UserAuth } from '../../src/accounts/index.ts';
import type { StoredEvent } from '../../src/events/index.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { closeSockets, connect, fakePayment, next, sleep, until } from './realtime-support.ts';

const ADMIN_TOKEN = 'race-admin-token';
/** Shaped as an access token (the fake authenticator accepts it). */
const ACCESS_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
const MERCHANT = 'mer_race';
const log = createLogger('silent');

const ownerAuth: UserAuth = {
  kind: 'user', userId: 'usr_race', merchantId: MERCHANT, sessionId: 'ses_race', role: 'owner', email: 'owner@example.com',
  tokenExpiresAt: new Date(Date.now() + 3600_000), merchant: { id: MERCHANT } as UserAuth['merchant'],
};

/** A namespace's way of emitting one event to the connection (`id` names it), and to a room it is not in. */
interface Case {
  namespace: string;
  auth: Record<string, unknown>;
  /** Connects and waits until the namespace accepted the connection (and it follows what it follows). */
  ready(s: ClientSocket): Promise<void>;
  /** Waits until a recovered connection has been accepted. */
  back(s: ClientSocket): Promise<unknown>;
  event: string;
  idOf(arg: unknown): string;
  emit(nsp: Namespace, id: string): void;
  emitElsewhere(nsp: Namespace, id: string): void;
}

const payment = fakePayment(MERCHANT, { id: 'pay_race' });
const storedEvent = (id: string, merchantId: string): StoredEvent => ({
  seq: 0, id: `evt_${id}`, type: 'payment.detecting', merchantId, paymentId: null, livemode: false,
  data: { ...fakePayment(merchantId), id }, webhookUrl: null, createdAt: new Date(),
});

describe('recovery of a connection that is emitted to during its handshake', () => {
  const server = http.createServer();
  const io = new Server(server, {
    path: SOCKET_PATH,
    connectionStateRecovery: { maxDisconnectionDuration: RECOVERY_WINDOW_MS, skipMiddlewares: false },
  });
  let url = '';
  /** Run once by the next recovering handshake, between the namespace's middleware and its joining. */
  let duringHandshake: ((nsp: Namespace) => void) | null = null;
  const listen = listenExtension({
    apiKey: async () => ({ kind: 'api_key', keyId: 'key_race', merchantId: MERCHANT, livemode: false, storeId: null, access: {}, merchant: {} }),
  } as unknown as AccountsService['authn']);
  let merchant: MerchantSockets;
  /** Whom the dashboard's handshake finds the token to be. */
  let member: UserAuth = ownerAuth;

  beforeAll(async () => {
    setUpCheckoutNamespace(io.of('/'), { payerViewByToken: async (t) => (t === payment.checkout_token ? payment : null) }, log);
    merchant = new MerchantSockets(io.of('/merchant'), { user: async () => member, sessionEnd: async () => null }, systemClock, log);
    setUpOperatorNamespace(io.of(OPERATOR_NAMESPACE), ADMIN_TOKEN, { server, clientAddress: () => '127.0.0.1' }, () => {}, () => Date.now());
    listen.setUp(io.of(LISTEN_NAMESPACE));
    for (const name of ['/', '/merchant', OPERATOR_NAMESPACE, LISTEN_NAMESPACE]) {
      const nsp = io.of(name);
      nsp.use((socket, nextStep) => {
        const hook = duringHandshake;
        if (socket.recovered && hook) {
          duringHandshake = null;
          hook(nsp);
        }
        nextStep();
      });
    }
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    merchant.stop();
    io.local.disconnectSockets(true);
    await new Promise((resolve) => io.close(resolve));
  });
  afterEach(() => {
    duringHandshake = null;
    member = ownerAuth;
    closeSockets();
  });

  const cases: Case[] = [
    {
      namespace: '/', auth: {}, event: 'payment:update',
      async ready(s) { await s.timeout(5000).emitWithAck('subscribe', payment.checkout_token); },
      back: (s) => next(s, 'connect'),
      idOf: (arg) => (arg as { type: string }).type,
      emit: (nsp, id) => nsp.to(paymentRoom(payment.id)).emit('payment:update', { type: id }),
      emitElsewhere: (nsp, id) => nsp.to(paymentRoom('pay_other')).emit('payment:update', { type: id }),
    },
    {
      namespace: '/merchant', auth: { token: ACCESS_TOKEN }, event: 'store:update',
      async ready(s) { await next(s, 'session'); },
      back: (s) => next(s, 'session'),
      idOf: (arg) => (arg as { id: string }).id,
      emit: (nsp, id) => nsp.to(merchantRoom(MERCHANT, 'owner')).emit('store:update', { id }),
      emitElsewhere: (nsp, id) => nsp.to(merchantRoom('mer_other', 'owner')).emit('store:update', { id }),
    },
    {
      namespace: OPERATOR_NAMESPACE, auth: { token: ADMIN_TOKEN }, event: 'support:message',
      async ready(s) { await next(s, 'connect'); },
      back: (s) => next(s, 'connect'),
      idOf: (arg) => (arg as { id: string }).id,
      emit: (nsp, id) => nsp.to(OPERATOR_ROOM).emit('support:message', { id }),
      emitElsewhere: (nsp, id) => nsp.to('nobody').emit('support:message', { id }),
    },
    {
      namespace: LISTEN_NAMESPACE, auth: { apiKey: 'sk_test_race' }, event: LISTEN_EVENT,
      async ready(s) { await next(s, LISTEN_READY); },
      back: (s) => next(s, LISTEN_READY),
      idOf: (arg) => JSON.parse((arg as ListenedEvent).body).data.id as string,
      emit: (nsp, id) => listen.deliver(nsp, [storedEvent(id, MERCHANT)], true),
      emitElsewhere: (nsp, id) => listen.deliver(nsp, [storedEvent(id, 'mer_other')], true),
    },
  ];

  for (const c of cases) {
    it(`hands a connection of ${c.namespace} what was emitted while it was coming back, once, in order`, async () => {
      const s = connect(`${url}${c.namespace}`, { reconnection: false, auth: c.auth });
      await c.ready(s);
      const got: string[] = [];
      s.on(c.event, (arg: unknown) => got.push(c.idOf(arg)));
      // a client that has heard nothing has no offset to come back from (the operator's socket hears nothing at first)
      const nsp = io.of(c.namespace);
      c.emit(nsp, 'before');
      await until(() => got.includes('before'));
      const dropped = next(s, 'disconnect');
      s.io.engine.close();
      await dropped;
      c.emit(nsp, 'missed');
      duringHandshake = (n) => {
        c.emit(n, 'during_handshake');
        c.emitElsewhere(n, 'elsewhere');
      };
      const back = c.back(s);
      s.connect();
      await back;
      expect(s.recovered).toBe(true);
      expect(duringHandshake).toBeNull();
      c.emit(nsp, 'live');
      await until(() => got.includes('live'));
      await sleep(100);
      expect(got).toEqual(['before', 'missed', 'during_handshake', 'live']);
    });
  }

  // What was emitted during the handshake was chosen by the rooms of the member who dropped, as the
  // missed events were: another member coming back on the connection hears none of it.
  it('hands a dashboard connection that comes back as another member nothing emitted while it was coming back', async () => {
    const s = connect(`${url}/merchant`, { reconnection: false, auth: { token: ACCESS_TOKEN } });
    await next(s, 'session');
    const got: string[] = [];
    s.on('store:update', (arg: { id: string }) => got.push(arg.id));
    const nsp = io.of('/merchant');
    nsp.to(merchantRoom(MERCHANT, 'owner')).emit('store:update', { id: 'before' });
    await until(() => got.includes('before'));
    const dropped = next(s, 'disconnect');
    s.io.engine.close();
    await dropped;
    nsp.to(merchantRoom(MERCHANT, 'owner')).emit('store:update', { id: 'missed' });
    member = { ...ownerAuth, userId: 'usr_viewer', role: 'viewer', email: 'viewer@example.com' };
    duringHandshake = (n) => n.to(merchantRoom(MERCHANT, 'owner')).emit('store:update', { id: 'during_handshake' });
    const session = next<{ recovered: boolean; role: string }>(s, 'session');
    s.connect();
    expect(await session).toMatchObject({ recovered: false, role: 'viewer' });
    expect(duringHandshake).toBeNull();
    nsp.to(merchantRoom(MERCHANT, 'viewer')).emit('store:update', { id: 'live' });
    await until(() => got.includes('live'));
    await sleep(100);
    expect(got).toEqual(['before', 'live']);
  });
});
