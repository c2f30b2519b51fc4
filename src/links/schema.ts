// Drizzle mirror of migrations/0770_payment_links.sql.
import { bigint, boolean, numeric, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../platform/db/index.ts';

export const paymentLinks = pgTable('payment_links', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  livemode: boolean('livemode').notNull(),
  storeId: text('store_id'),
  slug: text('slug').notNull(),
  name: text('name').notNull(),
  amountUsd: numeric('amount_usd').notNull(),
  description: text('description'),
  tokens: text('tokens').array(),
  successUrl: text('success_url'),
  cancelUrl: text('cancel_url'),
  active: boolean('active').notNull().default(true),
  lastNumber: bigint('last_number', { mode: 'number' }).notNull().default(0),
  payments: bigint('payments', { mode: 'number' }).notNull().default(0),
  volumeUsd: numeric('volume_usd').notNull().default('0'),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
});

export type LinkRow = typeof paymentLinks.$inferSelect;
