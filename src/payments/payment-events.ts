// Payment events written to the outbox in the transaction of the change. Webhook types (spec 6.1)
// carry the payment's own webhook_url; socket-only types (payment.created, payment.coin_chosen,
// payment.confirmations, payment.deposit, payment.simulation) feed the checkout and dashboard sockets.
import { appendEvent } from '../events/index.ts';
import type { Executor } from '../platform/db/index.ts';
import { PAYMENT_EVENTS, type TokenInfo } from './pure.ts';
import type { DepositRow, PaymentRow } from './schema.ts';
import { paymentEventData } from './views.ts';

export const SOCKET_EVENTS = {
  created: 'payment.created',
  coinChosen: 'payment.coin_chosen',
  confirmations: 'payment.confirmations',
  deposit: 'payment.deposit',
  simulation: 'payment.simulation',
} as const;

/** The event types a webhook receives and GET /merchant/payments/{id}/events lists. */
export const WEBHOOK_PAYMENT_EVENTS: readonly string[] = Object.values(PAYMENT_EVENTS);

/** `tokenOptions`: of a payment with no coin, for a socket-only event (paymentEventData). */
export async function emitPaymentEvent(tx: Executor, type: string, p: PaymentRow, deps: readonly DepositRow[], at: Date, tokenOptions?: TokenInfo[]): Promise<void> {
  await appendEvent(tx, {
    type,
    livemode: p.livemode,
    merchantId: p.merchantId,
    paymentId: p.id,
    data: paymentEventData(p, deps, tokenOptions),
    webhookUrl: WEBHOOK_PAYMENT_EVENTS.includes(type) ? p.webhookUrl : null,
    at,
  });
}
