// Drizzle mirror of migrations/0750_support.sql.
import { jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../platform/db/index.ts';

export const supportConversations = pgTable('support_conversations', {
  merchantId: text('merchant_id').primaryKey(),
  lastMessageId: text('last_message_id'),
  lastMessageAt: at('last_message_at'),
  merchantReadAt: at('merchant_read_at'),
  supportReadAt: at('support_read_at'),
  createdAt: at('created_at').notNull(),
});

export const supportMessages = pgTable('support_messages', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  side: text('side').$type<Side>().notNull(),
  author: jsonb('author').$type<Author>().notNull(),
  authorUserId: text('author_user_id'),
  body: text('body').notNull(),
  createdAt: at('created_at').notNull(),
  editedAt: at('edited_at'),
  deletedAt: at('deleted_at'),
});

export type Side = 'merchant' | 'support';
/** A member as they were when they wrote (`{id, email, role}`), or support's `{name}`. */
export type Author = { id: string; email: string; role: string } | { name: string };
export type MessageRow = typeof supportMessages.$inferSelect;
export type ConversationRow = typeof supportConversations.$inferSelect;
