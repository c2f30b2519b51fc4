// Which outbox events become webhook deliveries, and where they go (spec 6.1 "Webhook events" and
// "Routing"). Pure: the caller looks up the account URLs.

export { WEBHOOK_EVENT_TYPES, PING } from '../events/webhook-types.ts';
import { WEBHOOK_EVENT_TYPES, PAYOUT_EVENTS, PING } from '../events/webhook-types.ts';

export interface RoutableEvent {
  type: string;
  livemode: boolean;
  merchantId: string | null;
  webhookUrl: string | null;
}

/**
 * Where an event goes: a payment's own URL (target `payment`), the account URL of a mode (target
 * `account`; the caller checks one is set), or nowhere.
 */
export type Route =
  | { target: 'payment'; url: string; livemode: boolean }
  | { target: 'account'; livemode: boolean }
  | null;

const PAYOUT_TYPES: ReadonlySet<string> = new Set(Object.values(PAYOUT_EVENTS));

export function routeEvent(e: RoutableEvent): Route {
  if (!WEBHOOK_EVENT_TYPES.has(e.type) || !e.merchantId) return null;
  // Payouts are live only and always go to the live URL.
  if (PAYOUT_TYPES.has(e.type)) return { target: 'account', livemode: true };
  const ofPayment = e.type.startsWith('payment.') || e.type.startsWith('settlement.');
  if (ofPayment && e.webhookUrl) return { target: 'payment', url: e.webhookUrl, livemode: e.livemode };
  return { target: 'account', livemode: e.livemode };
}
