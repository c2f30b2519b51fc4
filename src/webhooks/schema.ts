// Drizzle mirror of migrations/0300_webhooks.sql.
import { bigint, boolean, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at } from '../platform/db/index.ts';

export const webhooks = pgTable('webhooks', {
  merchantId: text('merchant_id').notNull(),
  livemode: boolean('livemode').notNull(),
  url: text('url'),
  secretEnc: text('secret_enc').notNull(),
  // the events.seq from which the URL counts (migrations/1320): earlier events are not sent to it
  urlSinceSeq: bigint('url_since_seq', { mode: 'number' }),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
}, (t) => [primaryKey({ columns: [t.merchantId, t.livemode] })]);

export const deliveries = pgTable('deliveries', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  livemode: boolean('livemode').notNull(),
  target: text('target').$type<DeliveryTarget>().notNull(),
  url: text('url'),
  host: text('host').notNull(),
  paymentId: text('payment_id'),
  eventId: text('event_id').notNull(),
  eventType: text('event_type').notNull(),
  payload: text('payload').notNull(),
  status: text('status').$type<DeliveryStatus>().notNull(),
  attempts: integer('attempts').notNull(),
  maxAttempts: integer('max_attempts').notNull(),
  nextAttemptAt: at('next_attempt_at').notNull(),
  claim: text('claim'),
  leaseUntil: at('lease_until'),
  lastStatusCode: integer('last_status_code'),
  lastError: text('last_error'),
  lastAttemptAt: at('last_attempt_at'),
  deliveredAt: at('delivered_at'),
  resolvedAt: at('resolved_at'),
  resolutionNote: text('resolution_note'),
  history: jsonb('history').$type<HistoryEntry[]>().notNull(),
  createdAt: at('created_at').notNull(),
});

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof deliveries.$inferSelect;

export const DELIVERY_STATUSES = ['pending', 'sending', 'delivered', 'failed', 'resolved'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export type DeliveryTarget = 'account' | 'payment';

/** One line of a delivery's history (spec part 2); absent fields did not apply. */
export interface HistoryEntry {
  at: string;
  url?: string;
  signed?: number;
  status_code?: number;
  error?: string;
  response?: string;
  millis?: number;
  note?: string;
}
