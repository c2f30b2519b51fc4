// The checkout socket (spec 4.3): a payer follows one or more payments by checkout token.
import type { Namespace, Socket } from 'socket.io';
import type { Logger } from '../platform/logger.ts';
import { INTERNAL_ERROR } from '../platform/errors.ts';
import { CHECKOUT_TOKEN_REQUIRED, PAYMENT_NOT_FOUND, PAYMENT_SNAPSHOT, PAYMENT_UPDATE, SUBSCRIBE, UNSUBSCRIBE } from './events.ts';
import { checkoutUpdate, type PaymentJson } from './payer-view.ts';
import { ONE_PRINCIPAL, RecoveryHold } from './recovery-hold.ts';

/** What the sockets need of the payments room: the payer's view, as GET /checkout/{token} gives it. */
export interface CheckoutSource {
  payerViewByToken(checkoutToken: string): Promise<PaymentJson | null>;
}

export const paymentRoom = (paymentId: string): string => `pay:${paymentId}`;
/** Longer than any checkout token; anything longer is not looked up. */
const MAX_TOKEN_LENGTH = 200;

type Ack = (answer: unknown) => void;
interface CheckoutData {
  /** checkout token → payment id, for unsubscribe. */
  follows?: Record<string, string>;
}

/** socket.emit('subscribe', cb) passes the callback first: sort the arguments out. */
function tokenAndAck(args: unknown[]): { token: unknown; ack: Ack } {
  const last = args[args.length - 1];
  const ack: Ack = typeof last === 'function' ? (last as Ack) : () => {};
  const token = typeof args[0] === 'function' ? undefined : args[0];
  return { token, ack };
}

const hasToken = (t: unknown): t is string => typeof t === 'string' && t !== '';

export function setUpCheckoutNamespace(nsp: Namespace, source: CheckoutSource, log: Logger): void {
  // The payer has no credential to check again: the hold is for what socket.io's recovery misses,
  // the updates emitted to the connection's payments while it was coming back (recovery-hold.ts).
  const held = new RecoveryHold(nsp, ONE_PRINCIPAL);
  nsp.on('connection', (socket: Socket) => {
    held.replay(socket, true);
    const data = socket.data as CheckoutData;
    socket.on(SUBSCRIBE, async (...args: unknown[]) => {
      const { token, ack } = tokenAndAck(args);
      if (!hasToken(token)) return ack({ ok: false, error: CHECKOUT_TOKEN_REQUIRED });
      let payment: PaymentJson | null = null;
      try {
        payment = token.length <= MAX_TOKEN_LENGTH ? await source.payerViewByToken(token) : null;
      } catch (err) {
        // Not an unknown token: the payer is not told the payment does not exist. The transport is
        // dropped (not a server disconnect), so the client reconnects on its own and, as spec 4.3
        // asks of it after every reconnect, subscribes again; meanwhile the page polls.
        log.error({ err }, 'checkout socket lookup failed');
        ack({ ok: false, error: INTERNAL_ERROR });
        socket.conn.close();
        return;
      }
      if (!payment) {
        ack({ ok: false, error: PAYMENT_NOT_FOUND });
        socket.disconnect(true);
        return;
      }
      if (!socket.connected) return;
      socket.join(paymentRoom(payment.id));
      data.follows = { ...data.follows, [token]: payment.id };
      ack({ ok: true, payment });
      socket.emit(PAYMENT_UPDATE, checkoutUpdate(PAYMENT_SNAPSHOT, payment));
    });
    socket.on(UNSUBSCRIBE, (...args: unknown[]) => {
      const { token, ack } = tokenAndAck(args);
      if (!hasToken(token)) return ack({ ok: false, error: CHECKOUT_TOKEN_REQUIRED });
      const paymentId = data.follows?.[token];
      if (paymentId) {
        delete data.follows![token];
        // Another token of the same payment keeps the room.
        if (!Object.values(data.follows!).includes(paymentId)) socket.leave(paymentRoom(paymentId));
      }
      ack({ ok: true });
    });
  });
}
