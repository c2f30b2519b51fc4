import { bigserial, boolean, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../platform/db/index.ts';

// An event waits for the dispatcher while its seq is in outbox_pending (migrations/0003): every
// writer of events adds it there in the same statement (QUEUE_INSERTED_EVENTS, outbox.ts).
export const events = pgTable('events', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  id: text('id').notNull().unique(),
  type: text('type').notNull(),
  merchantId: text('merchant_id'),
  paymentId: text('payment_id'),
  livemode: boolean('livemode').notNull(),
  data: jsonb('data').notNull(),
  webhookUrl: text('webhook_url'),
  createdAt: at('created_at').notNull(),
});
