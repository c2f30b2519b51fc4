// `gateway listen`: connects to the gateway's /listen socket with a test key and forwards every
// event it receives, in order, to a local URL. Reconnects on its own (socket.io); an event raised
// while disconnected is not replayed (the delivery log in the dashboard keeps every event).
import { io, type Socket } from 'socket.io-client';
import { LISTEN_EVENT, LISTEN_NAMESPACE, LISTEN_READY, type ListenedEvent } from '../../src/listen/protocol.ts';
import { forwardEvent, type Forwarded } from './forward.ts';
import { listenSigningSecret } from './signing-secret.ts';

export interface ListenOptions {
  apiUrl: string;
  apiKey: string;
  forwardTo: string;
  onForwarded?: (f: Forwarded) => void;
  /** A lost connection (retried): told once per outage, not at every retry. */
  onProblem?: (message: string) => void;
  /** The gateway accepted the key again after a lost connection: forwarding goes on. */
  onResumed?: () => void;
  /** The gateway refused the key after it had been accepted (revoked, account suspended): listening has ended. */
  onRefused?: (message: string) => void;
}

export interface Listening {
  secret: string;
  /** Resolves when the gateway accepted the key; rejects with its refusal. */
  ready: Promise<{ merchant_id: string }>;
  close(): void;
}

export function listen(opts: ListenOptions): Listening {
  const secret = listenSigningSecret(opts.apiKey);
  const socket: Socket = io(`${opts.apiUrl.replace(/\/$/, '')}${LISTEN_NAMESPACE}`, {
    path: '/socket.io', auth: { apiKey: opts.apiKey }, transports: ['websocket'], reconnectionDelayMax: 5000,
  });
  let queue: Promise<void> = Promise.resolve();
  let accepted = false;
  // an outage is told once (socket.io retries every few seconds, each failing the same way)
  let down = false;
  const problem = (message: string) => {
    if (down) return;
    down = true;
    opts.onProblem?.(message);
  };
  socket.on(LISTEN_READY, () => {
    if (down && accepted) opts.onResumed?.();
    down = false;
  });
  socket.on(LISTEN_EVENT, (event: ListenedEvent) => {
    queue = queue.then(async () => {
      const forwarded = await forwardEvent(event, opts.forwardTo, secret);
      opts.onForwarded?.(forwarded);
    });
  });
  const ready = new Promise<{ merchant_id: string }>((resolve, reject) => {
    socket.once(LISTEN_READY, (ready: { merchant_id: string }) => { accepted = true; resolve(ready); });
    socket.on('connect_error', (err: Error & { data?: { message?: string } }) => {
      // A refusal of the key will not change by retrying: it is the answer of `ready` (reported
      // once, by whoever awaits it); anything else is a lost connection, retried.
      if (err.data?.message) {
        socket.close();
        if (accepted) opts.onRefused?.(err.data.message);
        else reject(new Error(err.data.message));
        return;
      }
      problem(`cannot connect (${err.message}); retrying`);
    });
  });
  socket.on('disconnect', (reason) => {
    if (reason === 'io client disconnect') return;
    problem(`connection lost (${reason}); reconnecting`);
    // The gateway ended the socket (key revoked, account suspended): socket.io does not reconnect on
    // its own then; connecting again hears the handshake's refusal (or goes on, if there is none).
    if (reason === 'io server disconnect') socket.connect();
  });
  return { secret, ready, close: () => socket.close() };
}
