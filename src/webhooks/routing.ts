// Which outbox events become webhook deliveries, and where they go (spec 6.1 "Webhook events" and
// "Routing"). Pure: the caller looks up the account URLs.

/** The webhook event types of spec 6.1; every other event (socket-only, internal) is never posted. */
export const WEBHOOK_EVENT_TYPES: ReadonlySet<string> = new Set([
  'payment.partially_paid', 'payment.detecting', 'payment.confirmed', 'payment.underpaid', 'payment.expired',
  'payment.failed', 'payment.wrong_asset', 'payment.late_deposit',
  'settlement.completed', 'settlement.failed',
  'payout.approved', 'payout.rejected', 'payout.sent',
  'ping',
]);

export const PING = 'ping';

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

export function routeEvent(e: RoutableEvent): Route {
  if (!WEBHOOK_EVENT_TYPES.has(e.type) || !e.merchantId) return null;
  // Payouts are live only and always go to the live URL.
  if (e.type.startsWith('payout.')) return { target: 'account', livemode: true };
  const ofPayment = e.type.startsWith('payment.') || e.type.startsWith('settlement.');
  if (ofPayment && e.webhookUrl) return { target: 'payment', url: e.webhookUrl, livemode: e.livemode };
  return { target: 'account', livemode: e.livemode };
}
