// Drizzle mirror of migrations/0780_customers.sql.
import { bigint, boolean, jsonb, numeric, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../platform/db/index.ts';

export const customers = pgTable('customers', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  livemode: boolean('livemode').notNull(),
  email: text('email').notNull(),
  name: text('name'),
  metadata: jsonb('metadata').$type<Record<string, unknown>>(),
  payments: bigint('payments', { mode: 'number' }).notNull().default(0),
  volumeUsd: numeric('volume_usd').notNull().default('0'),
  firstPaymentAt: at('first_payment_at'),
  lastPaymentAt: at('last_payment_at'),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
});

export type CustomerRow = typeof customers.$inferSelect;
