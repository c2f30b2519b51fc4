// Drizzle mirrors of migrations/0710_notifications.sql.
import { bigserial, boolean, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at } from '../platform/db/index.ts';

export const notifications = pgTable('notifications', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  id: text('id').notNull().unique(),
  merchantId: text('merchant_id').notNull(),
  livemode: boolean('livemode').notNull(),
  category: text('category').notNull(),
  title: text('title').notNull(),
  body: text('body').notNull(),
  subject: text('subject'),
  createdAt: at('created_at').notNull(),
});

export const notificationReads = pgTable('notification_reads', {
  userId: text('user_id').notNull(),
  notificationId: text('notification_id').notNull(),
  readAt: at('read_at').notNull(),
}, (t) => [primaryKey({ columns: [t.userId, t.notificationId] })]);

export type NotificationRow = typeof notifications.$inferSelect;
