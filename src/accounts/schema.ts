import { boolean, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../platform/db/index.ts';

export const merchants = pgTable('merchants', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  status: text('status').notNull(),
  feeBps: integer('fee_bps').notNull(),
  liveEnabled: boolean('live_enabled').notNull(),
  underpaidToleranceBps: integer('underpaid_tolerance_bps').notNull(),
  acceptOtherAssets: boolean('accept_other_assets').notNull(),
  settlement: text('settlement').notNull(),
  payoutSchedule: text('payout_schedule').notNull(),
  payoutScheduledAt: at('payout_scheduled_at'),
  feesPaidByCustomer: boolean('fees_paid_by_customer').notNull(),
  convertInto: text('convert_into').notNull(),
  hideBelowMinimum: boolean('hide_below_minimum').notNull(),
  enabledTokens: text('enabled_tokens').array(),
  referralCode: text('referral_code'),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
});

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  email: text('email').notNull(),
  passwordHash: text('password_hash').notNull(),
  role: text('role').notNull(),
  createdAt: at('created_at').notNull(),
  lastLoginAt: at('last_login_at'),
});

export const sessions = pgTable('sessions', {
  id: text('id').primaryKey(),
  userId: text('user_id').notNull(),
  merchantId: text('merchant_id').notNull(),
  createdAt: at('created_at').notNull(),
  expiresAt: at('expires_at').notNull(),
  revokedAt: at('revoked_at'),
  revokedReason: text('revoked_reason'),
});

export const refreshTokens = pgTable('refresh_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  sessionId: text('session_id').notNull(),
  createdAt: at('created_at').notNull(),
  replacedAt: at('replaced_at'),
});

export const stores = pgTable('stores', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  name: text('name').notNull(),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
});

export const apiKeys = pgTable('api_keys', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  livemode: boolean('livemode').notNull(),
  storeId: text('store_id'),
  label: text('label').notNull(),
  access: text('access').notNull(),
  last4: text('last4').notNull(),
  secretHash: text('secret_hash').notNull(),
  createdBy: text('created_by'),
  createdAt: at('created_at').notNull(),
  lastUsedAt: at('last_used_at'),
  revokedAt: at('revoked_at'),
});

export const auditEntries = pgTable('audit_entries', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  at: at('at').notNull(),
  action: text('action').notNull(),
  actor: jsonb('actor').notNull(),
  subject: text('subject'),
  paymentId: text('payment_id'),
  before: jsonb('before'),
  after: jsonb('after'),
  note: text('note'),
});

export type MerchantRow = typeof merchants.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type StoreRow = typeof stores.$inferSelect;

// migrations/0720_invitations.sql
export const invitations = pgTable('invitations', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  email: text('email').notNull(),
  role: text('role').notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  status: text('status').notNull(),
  invitedBy: text('invited_by').notNull(),
  expiresAt: at('expires_at').notNull(),
  acceptedAt: at('accepted_at'),
  revokedAt: at('revoked_at'),
  userId: text('user_id'),
  createdAt: at('created_at').notNull(),
});

export type InvitationRow = typeof invitations.$inferSelect;
