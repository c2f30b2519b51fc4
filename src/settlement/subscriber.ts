// Settles payments as they close: an outbox subscriber the composition root plugs in with the
// payments room's DepositsPort. Runs inside the dispatch transaction, so the settlement commits
// with the batch mark (at least once, and settling is idempotent per deposit).
import type { Subscriber } from '../events/index.ts';
import { PAYMENT_EVENTS } from '../events/webhook-types.ts';
import { SOCKET_EVENTS } from '../payments/payment-events.ts';
import type { Tx } from '../platform/db/index.ts';
import type { DepositsPort, SettleInput } from './ports.ts';

/**
 * The socket event of a deposit that became final (or failed) without moving the payment's status:
 * on a payment already closed (more money after it was confirmed, a coin's second deposit that was
 * still confirming) its deposits are ready to settle then, and no status event follows.
 */
export const DEPOSIT_SETTLED_EVENT = SOCKET_EVENTS.deposit;

/** Payment events after which final deposits may be ready to settle (closing, a late deposit, a deposit final after closing). */
export const SETTLING_EVENTS: ReadonlySet<string> = new Set([
  PAYMENT_EVENTS.confirmed, PAYMENT_EVENTS.underpaid, PAYMENT_EVENTS.expired, PAYMENT_EVENTS.failed, PAYMENT_EVENTS.lateDeposit,
  DEPOSIT_SETTLED_EVENT,
]);

export interface Settler { settle(tx: Tx, input: SettleInput): Promise<unknown> }

export function settlementSubscriber(settler: Settler, deposits: DepositsPort): Subscriber {
  return {
    name: 'settlement',
    // Reads the payment itself: the event's type and payment id are all it needs.
    wants: () => false,
    async handle(tx, batch) {
      const seen = new Set<string>();
      for (const e of batch) {
        if (!SETTLING_EVENTS.has(e.type) || !e.paymentId || seen.has(e.paymentId)) continue;
        seen.add(e.paymentId);
        const input = await deposits(tx, e.paymentId);
        if (input && input.deposits.length > 0) await settler.settle(tx, input);
      }
    },
  };
}
