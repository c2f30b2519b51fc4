// The page's connection to the gateway: GET /checkout/{token}, the coin choice and simulation
// POSTs, and the live updates of the checkout socket (spec 4.3), with polling when the socket is
// down. The socket.io client comes from the gateway itself, loaded after the first render.
import type { Payment } from './payment.ts';
import { heardServerTime } from './server-clock.ts';
import { PAYMENT_NOT_FOUND } from '../../../src/payments/not-found.ts';

export class RequestError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

export interface Api {
  base: string;
  token: string;
  /** `{base}/checkout/{token}` */
  url: string;
}

export function apiOf(base: string, token: string): Api {
  return { base, token, url: `${base}/checkout/${encodeURIComponent(token)}` };
}

export async function request(method: 'GET' | 'POST', url: string, body?: unknown): Promise<Payment> {
  const res = await fetch(url, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
    referrerPolicy: 'no-referrer',
  });
  heardServerTime(res.headers.get('date'));
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new RequestError(typeof json.error === 'string' ? json.error : `request failed (${res.status})`, res.status);
  return json as Payment;
}

const POLL_CONNECTED_MS = 30_000;
const POLL_OFFLINE_MS = 4_000;
const OPEN = ['pending', 'partially_paid', 'detecting'];

interface SocketLike {
  on(event: string, fn: (...args: any[]) => void): void; // eslint-disable-line @typescript-eslint/no-explicit-any -- socket.io's loose typing
  emit(event: string, ...args: unknown[]): void;
  close(): void;
}
type Io = (url: string | undefined, opts: { path: string }) => SocketLike;

function loadSocketClient(base: string): Promise<Io | null> {
  const w = window as unknown as { io?: Io };
  if (w.io) return Promise.resolve(w.io);
  return new Promise((resolve) => {
    const s = document.createElement('script');
    s.src = `${base}/socket.io/socket.io.min.js`;
    s.async = true;
    s.onload = () => resolve(w.io ?? null);
    s.onerror = () => resolve(null);
    document.head.append(s);
  });
}

export interface Following {
  /**
   * Shows a payment the page got from its own request (the answer of POST .../token or /simulate):
   * newer than whatever a poll under way read, so that poll's answer is dropped, not shown over it.
   */
  gave(p: Payment): void;
  stop(): void;
}

/**
 * Follows a payment: every change goes to `onPayment`. Polls GET every 30 s while the socket is up
 * (every 4 s while it is not), until the payment is closed for good.
 */
export function follow(api: Api, current: () => Payment | null, onPayment: (p: Payment) => void, onError: (e: unknown) => void): Following {
  let socket: SocketLike | null = null;
  let socketUp = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  // Payments the socket or the page's own requests have given. A poll's answer was read on the
  // server before it arrives: when one of those gave a payment meanwhile, the poll's may be the
  // older one (a deposit seen, or the coin chosen, in between: the coin list would come back over
  // the address until the next poll) and is dropped rather than shown over it; the socket hears of
  // every change after it commits, and when it drops the next poll comes within 4 s.
  let newerGiven = 0;
  const gave = (p: Payment) => {
    newerGiven += 1;
    onPayment(p);
  };

  const schedule = () => {
    clearTimeout(timer);
    const p = current();
    // A closed payment can still take a late deposit for 24 hours: keep a slow poll.
    if (stopped || (p && p.status === 'confirmed')) return;
    const open = !p || OPEN.includes(p.status);
    timer = setTimeout(() => {
      const before = newerGiven;
      request('GET', api.url).then((p) => { if (newerGiven === before) onPayment(p); }, onError).finally(schedule);
    }, socketUp || !open ? POLL_CONNECTED_MS : POLL_OFFLINE_MS);
  };

  void loadSocketClient(api.base).then((io) => {
    if (stopped || !io) return;
    socket = io(api.base || undefined, { path: '/socket.io' });
    socket.on('connect', () => {
      socket!.emit('subscribe', api.token, (ack: { ok: boolean; payment?: Payment; error?: string }) => {
        if (ack?.ok && ack.payment) {
          socketUp = true;
          gave(ack.payment);
        } else if (ack?.error === PAYMENT_NOT_FOUND) {
          onError(new RequestError(PAYMENT_NOT_FOUND, 404));
        }
        // Anything else (`internal error`: the gateway could not look the payment up) says nothing
        // of the payment: the gateway drops the transport, the socket reconnects and subscribes
        // again, and until then the page polls as while the socket is down.
        schedule();
      });
    });
    socket.on('payment:update', (u: { payment?: Payment }) => { if (u?.payment) gave(u.payment); });
    socket.on('disconnect', () => { socketUp = false; schedule(); });
  });
  schedule();
  return {
    gave,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      socket?.close();
    },
  };
}
