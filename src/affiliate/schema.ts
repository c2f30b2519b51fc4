// Drizzle mirrors of migrations/0700_referrals.sql. Amounts of the referral balance are base
// units of USDT_TRC20 (6 decimals).
import { bigint, bigserial, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { at, baseUnits } from '../platform/db/index.ts';
import { decimalColumn } from '../settlement/index.ts';

export const affiliates = pgTable('affiliates', {
  merchantId: text('merchant_id').primaryKey(),
  code: text('code').notNull().unique(),
  clicks: bigint('clicks', { mode: 'number' }).notNull(),
  available: baseUnits('available').notNull(),
  pendingPayout: baseUnits('pending_payout').notNull(),
  paidOut: baseUnits('paid_out').notNull(),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
});

export const referrals = pgTable('referrals', {
  merchantId: text('merchant_id').primaryKey(),
  affiliateId: text('affiliate_id').notNull(),
  code: text('code').notNull(),
  signedUpAt: at('signed_up_at').notNull(),
  status: text('status').notNull(),
  voidReason: text('void_reason'),
  voidedAt: at('voided_at'),
  attachedBy: text('attached_by'),
  earnsUntil: at('earns_until'),
  payments: integer('payments').notNull(),
  volumeUsd: decimalColumn('volume_usd').notNull(),
  earned: baseUnits('earned').notNull(),
  lastEarnedAt: at('last_earned_at'),
  createdAt: at('created_at').notNull(),
});

export const commissions = pgTable('commissions', {
  id: text('id').primaryKey(),
  affiliateId: text('affiliate_id').notNull(),
  merchantId: text('merchant_id').notNull(),
  paymentId: text('payment_id').notNull(),
  depositUsd: decimalColumn('deposit_usd').notNull(),
  feeUsd: decimalColumn('fee_usd').notNull(),
  rateBps: integer('rate_bps').notNull(),
  amount: baseUnits('amount').notNull(),
  createdAt: at('created_at').notNull(),
});

export const affiliatePayouts = pgTable('affiliate_payouts', {
  id: text('id').primaryKey(),
  affiliateId: text('affiliate_id').notNull(),
  amount: baseUnits('amount').notNull(),
  networkFee: baseUnits('network_fee').notNull(),
  sendAmount: baseUnits('send_amount').notNull(),
  addressId: text('address_id'),
  address: text('address').notNull(),
  status: text('status').notNull(),
  dueAt: at('due_at').notNull(),
  requestedBy: text('requested_by').notNull(),
  txId: text('tx_id'),
  note: text('note'),
  approvedAt: at('approved_at'),
  paidAt: at('paid_at'),
  rejectedAt: at('rejected_at'),
  canceledBy: text('canceled_by'),
  canceledAt: at('canceled_at'),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
});

export const affiliateEntries = pgTable('affiliate_entries', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  id: text('id').notNull().unique(),
  affiliateId: text('affiliate_id').notNull(),
  type: text('type').notNull(),
  amount: baseUnits('amount').notNull(),
  reference: text('reference').notNull(),
  note: text('note'),
  createdAt: at('created_at').notNull(),
});

export type AffiliateRow = typeof affiliates.$inferSelect;
export type ReferralRow = typeof referrals.$inferSelect;
export type CommissionRow = typeof commissions.$inferSelect;
export type AffiliatePayoutRow = typeof affiliatePayouts.$inferSelect;
export type AffiliateEntryRow = typeof affiliateEntries.$inferSelect;
