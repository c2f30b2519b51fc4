// The /merchant socket (spec 4.5): connected with the access token, `auth:refresh` with each new
// one, `auth:error` ending the session with its reason. Pages subscribe to the events they show
// (spec 6.3) and filter on `livemode`. The socket.io client is the one the gateway serves itself,
// loaded after the first render so it never weighs on the initial script.
import type { Session } from './session.ts';

type Fn = (payload: any) => void; // eslint-disable-line @typescript-eslint/no-explicit-any -- socket payloads of many shapes
interface SocketLike {
  on(event: string, fn: (...args: any[]) => void): void; // eslint-disable-line @typescript-eslint/no-explicit-any -- socket.io's loose typing
  onAny(fn: (event: string, ...args: unknown[]) => void): void;
  emit(event: string, ...args: unknown[]): void;
  close(): void;
  connected: boolean;
}
type Io = (url: string, opts: Record<string, unknown>) => SocketLike;

function loadClient(): Promise<Io | null> {
  const w = window as unknown as { io?: Io };
  if (w.io) return Promise.resolve(w.io);
  return new Promise((resolve) => {
    const s = document.createElement('script');
    s.src = '/socket.io/socket.io.min.js';
    s.async = true;
    s.onload = () => resolve(w.io ?? null);
    s.onerror = () => resolve(null);
    document.head.append(s);
  });
}

export class Live {
  readonly #session: Session;
  readonly #subs = new Map<string, Set<Fn>>();
  #socket: SocketLike | null = null;
  #statusFns = new Set<(up: boolean) => void>();
  up = false;

  constructor(session: Session) {
    this.#session = session;
    session.onToken = (token) => {
      if (this.#socket) this.#socket.emit('auth:refresh', token, () => undefined);
      else void this.#connect(token);
    };
    session.subscribe((s) => { if (s.status !== 'signed-in') this.close(); });
    // `merchant:update` (spec 6.3, everyone) carries the merchant after any change: live mode
    // turned on or off, settings, a rename. Every page reads the merchant from the session (the
    // overview's checklist, settings, the header's name), so it is taken there, or another tab or
    // teammate's change would show only after a reload.
    this.on('merchant:update', (m: { id?: string } | undefined) => {
      const s = session.state;
      if (s.status === 'signed-in' && m && m.id === s.merchant.id) session.setMerchant(m);
    });
  }

  async #connect(token: string): Promise<void> {
    const io = await loadClient();
    if (!io || this.#socket || this.#session.state.status !== 'signed-in') return;
    const socket = io('/merchant', { auth: (cb: (a: unknown) => void) => cb({ token: this.#session.state.status === 'signed-in' ? this.#session.state.token : token }) });
    this.#socket = socket;
    socket.on('connect', () => this.#status(true));
    socket.on('disconnect', () => this.#status(false));
    socket.on('connect_error', (err: { data?: { code?: string } }) => {
      this.#status(false);
      // A token that expired while away: refresh (the handshake reads the new one on retry).
      if (err?.data?.code === 'invalid_token') void this.#session.refresh();
    });
    socket.on('auth:error', (p: { code: string }) => {
      this.close();
      const code = p?.code ?? 'session_revoked';
      if (code !== 'token_expired') return this.#session.ended(code);
      // The server ends a socket when its token runs out. A tab in the background can get there
      // first: browsers hold back hidden tabs' timers (up to a minute), so the refresh due a
      // minute before expiry may not have run, while the cookie is still good. Exchange it: the new
      // token connects again (onToken); only an exchange that fails signs out.
      void this.#session.refresh().then((token) => {
        if (!token && this.#session.state.status === 'signed-in') this.#session.ended(code);
      });
    });
    socket.onAny((event, payload) => {
      for (const fn of this.#subs.get(event) ?? []) fn(payload);
    });
  }

  #status(up: boolean): void {
    this.up = up;
    for (const fn of this.#statusFns) fn(up);
  }

  /** Tells `fn` whether the socket is up at once (as Session.subscribe does), then every change. */
  onStatus(fn: (up: boolean) => void): () => void {
    this.#statusFns.add(fn);
    fn(this.up);
    return () => this.#statusFns.delete(fn);
  }

  on(event: string, fn: Fn): () => void {
    let set = this.#subs.get(event);
    if (!set) this.#subs.set(event, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  emit(event: string, payload: unknown): void {
    this.#socket?.emit(event, payload);
  }

  close(): void {
    this.#socket?.close();
    this.#socket = null;
    this.#status(false);
  }
}
