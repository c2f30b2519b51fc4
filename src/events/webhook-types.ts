// The webhook event types of spec 6.1, named once. Rooms write them (payments, settlement,
// payouts, webhooks' ping); webhooks route them, the timeline lists them, settlement reacts to them.
export const PAYMENT_EVENTS = {
  partiallyPaid: 'payment.partially_paid',
  detecting: 'payment.detecting',
  confirmed: 'payment.confirmed',
  underpaid: 'payment.underpaid',
  expired: 'payment.expired',
  failed: 'payment.failed',
  wrongAsset: 'payment.wrong_asset',
  lateDeposit: 'payment.late_deposit',
} as const;
export type PaymentEventType = (typeof PAYMENT_EVENTS)[keyof typeof PAYMENT_EVENTS];

export const SETTLEMENT_EVENTS = { completed: 'settlement.completed', failed: 'settlement.failed' } as const;
export const PAYOUT_EVENTS = { approved: 'payout.approved', rejected: 'payout.rejected', sent: 'payout.sent' } as const;
export const PING = 'ping';

/** Every type a webhook may carry; anything else in the outbox (socket-only, internal) is never posted. */
export const WEBHOOK_EVENT_TYPES: ReadonlySet<string> = new Set([
  ...Object.values(PAYMENT_EVENTS), ...Object.values(SETTLEMENT_EVENTS), ...Object.values(PAYOUT_EVENTS), PING,
]);
