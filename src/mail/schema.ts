// Drizzle mirrors of migrations/1300_mail.sql and 1310_mail_invitations.sql.
import { boolean, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../platform/db/index.ts';

/**
 * A queued mail's statuses (queue.ts): pending (due at next_attempt_at), sending (claimed until
 * lease_until), sent, skipped (may no longer go: recipient.ts), failed (given up).
 */
export const MAIL_STATUSES = ['pending', 'sending', 'sent', 'skipped', 'failed'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/**
 * What a queued mail is: a notification to a member (notification_id and user_id set), or an
 * invitation to the invited address (invitation_id set; its body sealed: invitation-mail.ts).
 */
export const MAIL_KINDS = ['notification', 'invitation'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

export const mailQueue = pgTable('mail_queue', {
  id: text('id').primaryKey(),
  kind: text('kind').$type<MailKind>().notNull(),
  notificationId: text('notification_id'),
  invitationId: text('invitation_id'),
  merchantId: text('merchant_id').notNull(),
  userId: text('user_id'),
  toAddress: text('to_address').notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  status: text('status').notNull(),
  attempts: integer('attempts').notNull(),
  nextAttemptAt: at('next_attempt_at').notNull(),
  claim: text('claim'),
  leaseUntil: at('lease_until'),
  lastError: text('last_error'),
  sentAt: at('sent_at'),
  createdAt: at('created_at').notNull(),
});

export const mailPreferences = pgTable('mail_preferences', {
  userId: text('user_id').primaryKey(),
  referralPayoutRequested: boolean('referral_payout_requested').notNull(),
  categories: text('categories').array().notNull(),
  updatedAt: at('updated_at').notNull(),
});

export type MailRow = typeof mailQueue.$inferSelect;
