// The realtime room's service: an outbox subscriber whose batches reach every process through the
// fan-out, and the socket.io server those processes emit from (attached to Fastify's HTTP server).
import type { Server as HttpServer } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { Server, type Namespace } from 'socket.io';
import type { Platform } from '../platform/context.ts';
import type { StoredEvent, Subscriber } from '../events/index.ts';
import { DASHBOARD_UPDATE, FIGURES_INTERVAL_MS, MERCHANT_NAMESPACE, RECOVERY_WINDOW_MS, SOCKET_PATH } from './events.ts';
import { chooseFanout, type Fanout, type Relay } from './fanout.ts';
import { routeEvent, type Route } from './routing.ts';
import { paymentRoom, setUpCheckoutNamespace, type CheckoutSource } from './checkout-namespace.ts';
import { allRoleRooms, merchantRoom, MerchantSockets, sessionRoom, userRoom, type UserAuthenticator } from './merchant-namespace.ts';
import { OPERATOR_NAMESPACE, OPERATOR_ROOM, setUpOperatorNamespace } from './operator-namespace.ts';
import { isTypingRelay, merchantTypingPayload, operatorTypingPayload, type TypingRelay } from './typing.ts';
import { SUPPORT_TYPING } from '../support/index.ts';
import { clientAddressOf } from '../platform/http/index.ts';
import { FiguresThrottle } from './figures-throttle.ts';
import type { NamesOf, PaymentJson } from './payer-view.ts';
import { registerCheckoutPage, registerQrRoute } from './checkout-page.ts';
import { registerDashboardPage } from './dashboard-page.ts';

/** Dashboard figures of one mode (spec part 2 "Dashboard figures"), from the payments room. */
export type FiguresSource = (merchantId: string, livemode: boolean) => Promise<Record<string, unknown>>;

export interface RealtimeSources {
  checkout?: CheckoutSource;
  figures?: FiguresSource;
  /** merchant_name / store_name for the checkout socket's payer view (never waits). */
  names?: NamesOf;
  /** The chain id of each EVM chain's node (null until it answered), for the hosted page's wallet links. */
  evmChainIds?: () => Readonly<Record<string, number | null>>;
}

/** Until the payments room is wired in, no checkout token is known. */
const NO_PAYMENTS: CheckoutSource = { payerViewByToken: async (): Promise<PaymentJson | null> => null };

/**
 * A namespace of another room on this socket server (e.g. the CLI's `/listen`): set up when
 * socket.io attaches, handed every committed batch this process emits, and counted among the
 * namespaces whose sockets make a batch worth reading.
 */
export interface SocketExtension {
  namespace: string;
  setUp(nsp: Namespace): void;
  /**
   * `recentDrop`: a socket of any namespace here went away within the recovery window, so rooms
   * nobody is in are emitted to anyway (a socket away is in none, and recovery replays only what
   * was emitted).
   */
  deliver(nsp: Namespace, batch: readonly StoredEvent[], recentDrop: boolean): void;
}

export class Realtime {
  readonly subscriber: Subscriber;
  readonly #platform: Platform;
  readonly #authn: UserAuthenticator;
  readonly #fanout: Fanout;
  readonly #throttle: FiguresThrottle;
  #checkout: CheckoutSource = NO_PAYMENTS;
  #figures: FiguresSource | null = null;
  #names: NamesOf | undefined;
  #evmChainIds: () => Readonly<Record<string, number | null>> = () => ({});
  #io: Server | null = null;
  #merchant: MerchantSockets | null = null;
  /** When a socket of this process last disconnected (performance.now()). */
  #lastDrop = -Infinity;
  readonly #extensions: SocketExtension[] = [];
  #heard: { io: Server; extensions: number; list: Namespace[] } | null = null;

  constructor(platform: Platform, authn: UserAuthenticator, sources: RealtimeSources = {}, fanout?: Fanout) {
    this.#platform = platform;
    this.#authn = authn;
    this.#fanout = fanout ?? chooseFanout(platform.db, platform.config.redisUrl, platform.log);
    this.#throttle = new FiguresThrottle(FIGURES_INTERVAL_MS, (m, live) => void this.#pushFigures(m, live));
    this.use(sources);
    this.subscriber = {
      name: 'realtime',
      // Redis carries the events themselves to every process; otherwise this process emits only to
      // its own sockets (the others read the events by seq), so with nobody here to hear, none is read.
      wants: () => this.#fanout.kind === 'redis' || (this.#io !== null && this.#mayHear(this.#io)),
      handle: (tx, batch) => this.#fanout.inTransaction(tx, batch),
      beforeCommit: (batch) => this.#fanout.beforeCommit(batch),
      afterCommit: (batch) => this.#fanout.afterCommit(batch),
      // Socket-only events (webhook:delivery): in the writer's transaction, then to every process.
      announce: (tx, list) => this.#fanout.announce(tx, list),
      announced: (batch) => this.#fanout.announced(batch),
    };
    platform.outbox.subscribe(this.subscriber);
  }

  get fanoutKind(): Fanout['kind'] {
    return this.#fanout.kind;
  }

  /** Adds another room's namespace; call before register(). */
  extend(extension: SocketExtension): void {
    this.#extensions.push(extension);
  }

  /** Wires the payments room in (its payer view and dashboard figures). */
  use(sources: RealtimeSources): void {
    if (sources.checkout) this.#checkout = sources.checkout;
    if (sources.figures) this.#figures = sources.figures;
    if (sources.names) this.#names = sources.names;
    if (sources.evmChainIds) this.#evmChainIds = sources.evmChainIds;
  }

  /** The payer's view by checkout token (the payments room's, once wired in). */
  get checkout(): CheckoutSource {
    return this.#checkout;
  }

  /**
   * On the app: socket.io on its HTTP server, the QR route, and the hosted page when CHECKOUT_URL
   * is set. Sockets are closed before the HTTP server, so it can drain.
   */
  register(app: FastifyInstance): void {
    const { checkoutUrl, publicUrl } = this.#platform.config;
    const io = this.attach(app.server);
    registerQrRoute(app, () => this.#checkout);
    registerDashboardPage(app, { log: this.#platform.log });
    if (checkoutUrl) {
      const apiBase = new URL(checkoutUrl).origin === new URL(publicUrl).origin ? '' : publicUrl;
      registerCheckoutPage(app, { apiBase, tokenContracts: this.#platform.config.tokenContracts, evmChainIds: () => this.#evmChainIds(), log: this.#platform.log });
    }
    app.addHook('preClose', async () => {
      this.#merchant?.stop();
      io.local.disconnectSockets(true);
      io.engine.close();
    });
  }

  /** Attaches socket.io to the HTTP server (same port, path /socket.io, long-polling and WebSocket). */
  attach(server: HttpServer): Server {
    const io = new Server(server, {
      path: SOCKET_PATH,
      serveClient: true,
      // The checkout socket is public and any website may embed the checkout (spec 1 "Surfaces").
      cors: { origin: true },
      connectionStateRecovery: { maxDisconnectionDuration: RECOVERY_WINDOW_MS, skipMiddlewares: false },
    });
    const { adminToken } = this.#platform.config;
    for (const nsp of this.#namespaces(io)) {
      nsp.on('connection', (socket) => socket.on('disconnect', () => { this.#lastDrop = performance.now(); }));
    }
    setUpCheckoutNamespace(io.of('/'), { payerViewByToken: (t) => this.#checkout.payerViewByToken(t) }, this.#platform.log);
    const relay = (r: TypingRelay) => this.#fanout.relay(r as unknown as Relay);
    this.#merchant = new MerchantSockets(io.of(MERCHANT_NAMESPACE), this.#authn, this.#platform.clock, this.#platform.log, (auth, typing) =>
      relay({ kind: 'typing', merchant_id: auth.merchantId, side: 'merchant', name: auth.email, typing, user_id: auth.userId }));
    // The operator's socket exists only with ADMIN_TOKEN, like the /admin routes.
    if (adminToken) setUpOperatorNamespace(io.of(OPERATOR_NAMESPACE), adminToken, { server, clientAddress: clientAddressOf(this.#platform.config.trustProxy) }, relay, () => this.#platform.clock.now().getTime());
    for (const ext of this.#extensions) ext.setUp(io.of(ext.namespace));
    this.#io = io;
    return io;
  }

  /** The namespaces sockets connect to: checkout, dashboard and, with ADMIN_TOKEN, the operator's. */
  #namespaces(io: Server): Namespace[] {
    return [io.of('/'), io.of(MERCHANT_NAMESPACE), ...(this.#platform.config.adminToken ? [io.of(OPERATOR_NAMESPACE)] : []),
      ...this.#extensions.map((ext) => io.of(ext.namespace))];
  }

  async start(): Promise<void> {
    await this.#fanout.start((batch) => this.deliver(batch), (m) => this.#relayed(m));
  }

  /** A relay from any process (this one included): support typing to the merchant's members and the operators. */
  #relayed(m: Relay): void {
    if (!this.#io || !isTypingRelay(m)) return;
    const merchant = this.#io.of(MERCHANT_NAMESPACE).to(allRoleRooms(m.merchant_id));
    (m.user_id ? merchant.except(userRoom(m.user_id)) : merchant).emit(SUPPORT_TYPING, merchantTypingPayload(m));
    if (this.#platform.config.adminToken) {
      const operators = this.#io.of(OPERATOR_NAMESPACE).to(OPERATOR_ROOM);
      (m.socket_id ? operators.except(m.socket_id) : operators).emit(SUPPORT_TYPING, operatorTypingPayload(m));
    }
  }

  async stop(): Promise<void> {
    this.#throttle.stop();
    this.#merchant?.stop();
    await this.#fanout.stop();
  }

  /** Emits one committed batch to this process's sockets, in order. */
  deliver(batch: StoredEvent[]): void {
    // Most events concern payments nobody is watching: with no socket here to hear them, and none
    // dropped recently enough to come back and be handed what it missed, nothing is built or sent.
    if (!this.#io || !this.#mayHear(this.#io)) return;
    for (const e of batch) {
      // Not read: nobody could hear it when the batch was read (a socket connected since).
      if (e.data === undefined) continue;
      // An event the router cannot read is logged and skipped, not the end of the batch (the
      // events after it, and the other namespaces', still go out).
      let routes: ReturnType<typeof routeEvent>;
      try {
        routes = routeEvent(e, this.#names, this.#platform.config.checkoutUrl);
      } catch (err) {
        this.#platform.log.error({ err, event: e.id }, 'realtime routing failed');
        continue;
      }
      for (const r of routes) {
        try {
          this.#apply(this.#io, r);
        } catch (err) {
          this.#platform.log.error({ err, event: e.id }, 'realtime emit failed');
        }
      }
    }
    const recentDrop = this.#recentDrop();
    for (const ext of this.#extensions) {
      try {
        ext.deliver(this.#io.of(ext.namespace), batch, recentDrop);
      } catch (err) {
        this.#platform.log.error({ err, namespace: ext.namespace }, 'realtime emit failed');
      }
    }
  }

  /**
   * Connection-state recovery replays to a returning socket only what was emitted while it was
   * away, so after a drop everything is emitted for RECOVERY_WINDOW_MS; otherwise a room nobody is
   * in here is skipped (emitting would encode and store the packet for no one).
   */
  #mayHear(io: Server): boolean {
    for (const nsp of this.#heardNamespaces(io)) if (nsp.sockets.size > 0) return true;
    return this.#recentDrop();
  }

  /** #namespaces(io), made again only when the server or the extensions change: it is asked on every outbox event. */
  #heardNamespaces(io: Server): Namespace[] {
    const h = this.#heard;
    if (h && h.io === io && h.extensions === this.#extensions.length) return h.list;
    const list = this.#namespaces(io);
    this.#heard = { io, extensions: this.#extensions.length, list };
    return list;
  }

  #recentDrop(): boolean {
    return performance.now() - this.#lastDrop < RECOVERY_WINDOW_MS;
  }

  #apply(io: Server, r: Route): void {
    const nsp = io.of(MERCHANT_NAMESPACE);
    switch (r.kind) {
      case 'checkout': {
        const room = paymentRoom(r.paymentId);
        if (this.#recentDrop() || io.of('/').adapter.rooms.has(room)) io.of('/').to(room).emit(r.event, r.payload);
        return;
      }
      case 'merchant': {
        const rooms = r.roles.map((role) => merchantRoom(r.merchantId, role));
        if (this.#recentDrop() || rooms.some((room) => nsp.adapter.rooms.has(room))) nsp.to(rooms).emit(r.event, r.payload);
        return;
      }
      case 'operator': {
        // io.of() would make the namespace: without ADMIN_TOKEN it must not exist.
        if (!this.#platform.config.adminToken) return;
        const operators = io.of(OPERATOR_NAMESPACE);
        if (this.#recentDrop() || operators.adapter.rooms.has(OPERATOR_ROOM)) operators.to(OPERATOR_ROOM).emit(r.event, r.payload);
        return;
      }
      case 'user': {
        const room = userRoom(r.userId);
        if (this.#recentDrop() || nsp.adapter.rooms.has(room)) nsp.to(room).emit(r.event, r.payload);
        return;
      }
      case 'figures':
        if (this.#figures) this.#throttle.request(r.merchantId, r.livemode);
        return;
      case 'end_sessions':
        this.#endSockets(r.sessionIds.map(sessionRoom), r.code);
        return;
      case 'end_merchant':
        this.#endSockets(allRoleRooms(r.merchantId), r.code);
    }
  }

  #endSockets(rooms: string[], code: string): void {
    const nsp = this.#io?.of(MERCHANT_NAMESPACE);
    if (!nsp || !this.#merchant) return;
    const ids = new Set<string>();
    for (const room of rooms) for (const id of nsp.adapter.rooms.get(room) ?? []) ids.add(id);
    for (const id of ids) {
      const socket = nsp.sockets.get(id);
      if (socket) this.#merchant.end(socket, code);
    }
  }

  /** Only merchants with a dashboard open here are computed; every process pushes to its own sockets. */
  async #pushFigures(merchantId: string, livemode: boolean): Promise<void> {
    const nsp = this.#io?.of(MERCHANT_NAMESPACE);
    const rooms = allRoleRooms(merchantId);
    if (!nsp || !this.#figures || !rooms.some((room) => nsp.adapter.rooms.has(room))) return;
    try {
      const figures = await this.#figures(merchantId, livemode);
      nsp.to(rooms).emit(DASHBOARD_UPDATE, { ...figures, livemode });
    } catch (err) {
      this.#platform.log.error({ err, merchantId }, 'dashboard figures failed');
    }
  }
}
