// Drizzle mirror of migrations/0200_payments.sql.
import { bigint, boolean, integer, jsonb, numeric, pgTable, text } from 'drizzle-orm/pg-core';
import { at, baseUnits } from '../platform/db/index.ts';
import type { CapturedSettings } from '../accounts/index.ts';

export const payments = pgTable('payments', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  storeId: text('store_id'),
  livemode: boolean('livemode').notNull(),
  orderId: text('order_id').notNull(),
  status: text('status').notNull(),
  token: text('token').notNull().default(''),
  chain: text('chain').notNull().default(''),
  depositAddress: text('deposit_address').notNull().default(''),
  addressIndex: integer('address_index'),
  destinationTag: bigint('destination_tag', { mode: 'number' }),
  usdAmount: numeric('usd_amount').notNull(),
  amountDueUsd: numeric('amount_due_usd').notNull(),
  extraUsd: numeric('extra_usd'),
  cryptoAmount: baseUnits('crypto_amount'),
  rateLocked: numeric('rate_locked'),
  networkFee: baseUnits('network_fee'),
  networkFeeUsd: numeric('network_fee_usd'),
  networkFeeBps: integer('network_fee_bps'),
  receivedAmount: baseUnits('received_amount').notNull().default(0n),
  receivedUsd: numeric('received_usd').notNull().default('0'),
  confirmations: integer('confirmations'),
  confirmationsRequired: integer('confirmations_required'),
  settings: jsonb('settings').$type<CapturedSettings>().notNull(),
  allowedTokens: text('allowed_tokens').array(),
  description: text('description'),
  metadata: jsonb('metadata').$type<Record<string, unknown>>(),
  customerEmail: text('customer_email'),
  successUrl: text('success_url'),
  cancelUrl: text('cancel_url'),
  webhookUrl: text('webhook_url'),
  checkoutToken: text('checkout_token').notNull(),
  priceAmount: text('price_amount'),
  priceCurrency: text('price_currency'),
  priceRate: text('price_rate'),
  simulation: jsonb('simulation').$type<{ outcome: string; state: 'running' | 'done' }>(),
  expiresAt: at('expires_at').notNull(),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
  confirmedAt: at('confirmed_at'),
  closedAt: at('closed_at'),
});

export const deposits = pgTable('deposits', {
  id: text('id').primaryKey(),
  paymentId: text('payment_id').notNull(),
  txId: text('tx_id').notNull(),
  token: text('token').notNull(),
  amount: baseUnits('amount').notNull(),
  usdValue: numeric('usd_value').notNull(),
  counted: boolean('counted').notNull(),
  confirmations: integer('confirmations').notNull(),
  confirmationsRequired: integer('confirmations_required').notNull(),
  status: text('status').notNull(),
  simulated: boolean('simulated').notNull(),
  late: boolean('late').notNull(),
  sender: text('sender'),
  block: bigint('block', { mode: 'number' }),
  seenAt: at('seen_at').notNull(),
  finalAt: at('final_at'),
  /** When its block left the best chain (it waits for the transaction to be mined again). */
  orphanedAt: at('orphaned_at'),
});

export type PaymentRow = typeof payments.$inferSelect;
export type NewPaymentRow = typeof payments.$inferInsert;
export type DepositRow = typeof deposits.$inferSelect;
