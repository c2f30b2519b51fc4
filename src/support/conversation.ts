// Reads and writes of one merchant's conversation: messages oldest first with paging backwards,
// unread counts per side, the conversation row (latest message, read marks). No HTTP here.
import { and, asc, count, desc, eq, gt, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { withTotal, type Executor, type Tx } from '../platform/db/index.ts';
import { badRequest } from '../platform/errors.ts';
import { isIdShaped } from '../platform/fields.ts';
import { listParams, LIST_DEFAULT } from '../platform/list-params.ts';
import { supportConversations, supportMessages, type ConversationRow, type MessageRow, type Side } from './schema.ts';
import { messageJson } from './messages.ts';

export const BEFORE_INVALID = 'before must be the id of a message of this conversation';

export const otherSide = (side: Side): Side => (side === 'merchant' ? 'support' : 'merchant');

export async function conversationOf(ex: Executor, merchantId: string): Promise<ConversationRow | undefined> {
  const [row] = await ex.select().from(supportConversations).where(eq(supportConversations.merchantId, merchantId)).limit(1);
  return row;
}

/** Messages of the other side that `reader` has not read (deleted ones left out). */
export async function unreadBy(ex: Executor, merchantId: string, reader: Side, conv?: ConversationRow): Promise<number> {
  const c = conv ?? (await conversationOf(ex, merchantId));
  const readAt = reader === 'merchant' ? c?.merchantReadAt : c?.supportReadAt;
  const [{ n }] = await ex.select({ n: count() }).from(supportMessages).where(and(
    eq(supportMessages.merchantId, merchantId), eq(supportMessages.side, otherSide(reader)), isNull(supportMessages.deletedAt),
    ...(readAt ? [gt(supportMessages.createdAt, readAt)] : []),
  ));
  return Number(n);
}

/**
 * A page of the conversation as `reader` sees it: the `limit` latest messages (before the message
 * `before`, when given), oldest first, with the reader's unread count.
 */
export async function messagesPage(ex: Executor, merchantId: string, reader: Side, query: Record<string, unknown>) {
  const { limit } = listParams(query, LIST_DEFAULT);
  const where: SQL[] = [eq(supportMessages.merchantId, merchantId)];
  if (query.before !== undefined && query.before !== '') {
    const before = isIdShaped(query.before) ? await findMessage(ex, merchantId, query.before) : undefined;
    if (!before) throw badRequest(BEFORE_INVALID);
    where.push(or(lt(supportMessages.createdAt, before.createdAt), and(eq(supportMessages.createdAt, before.createdAt), lt(supportMessages.id, before.id)))!);
  }
  const rows = await ex.select().from(supportMessages).where(and(...where))
    .orderBy(desc(supportMessages.createdAt), desc(supportMessages.id)).limit(limit);
  return { messages: rows.reverse().map(messageJson), unread: await unreadBy(ex, merchantId, reader), limit };
}

export async function findMessage(ex: Executor, merchantId: string, id: string, lock = false): Promise<MessageRow | undefined> {
  const q = ex.select().from(supportMessages).where(and(eq(supportMessages.id, id), eq(supportMessages.merchantId, merchantId))).limit(1);
  const [row] = lock ? await q.for('update') : await q;
  return row;
}

/** Points the conversation at a new message (a later one never loses its place to an earlier). */
export async function touchConversation(tx: Tx, m: MessageRow): Promise<void> {
  await tx.insert(supportConversations).values({ merchantId: m.merchantId, lastMessageId: m.id, lastMessageAt: m.createdAt, createdAt: m.createdAt })
    .onConflictDoUpdate({
      target: supportConversations.merchantId,
      set: { lastMessageId: m.id, lastMessageAt: m.createdAt },
      setWhere: sql`${supportConversations.lastMessageAt} is null or ${supportConversations.lastMessageAt} <= ${m.createdAt.toISOString()}::timestamptz`,
    });
}

/**
 * Moves one side's read mark to `at`, never back: a read of an earlier time that lands after a later
 * one (two tabs at once, or two processes) leaves the later mark. Answers the mark as it now stands.
 */
export async function markRead(tx: Tx, merchantId: string, side: Side, at: Date): Promise<Date> {
  const column = side === 'merchant' ? supportConversations.merchantReadAt : supportConversations.supportReadAt;
  const key = side === 'merchant' ? 'merchantReadAt' : 'supportReadAt';
  // greatest() passes over a null mark (never read)
  const [row] = await tx.insert(supportConversations).values({ merchantId, createdAt: at, [key]: at })
    .onConflictDoUpdate({ target: supportConversations.merchantId, set: { [key]: sql`greatest(${column}, excluded.${sql.identifier(column.name)})` } })
    .returning({ mark: column });
  return row.mark!;
}

/** Conversations with at least one message, latest first, with support's unread count and merchant name. */
export async function conversationsPage(ex: Executor, page: { limit: number; offset: number }) {
  // Written out with the table's name: inside a subquery drizzle's bare column names would bind to it.
  const unread = sql<number>`(select count(*) from support_messages s where s.merchant_id = support_conversations.merchant_id
    and s.side = 'merchant' and s.deleted_at is null
    and (support_conversations.support_read_at is null or s.created_at > support_conversations.support_read_at))`;
  const merchantName = sql<string>`(select m.name from merchants m where m.id = support_conversations.merchant_id)`;
  const where = sql`${supportConversations.lastMessageId} is not null`;
  const { rows, total } = await withTotal(ex, supportConversations, where,
    ex.select({ merchantId: supportConversations.merchantId, merchantName, lastMessageId: supportConversations.lastMessageId, unread })
      .from(supportConversations).where(where)
      .orderBy(desc(supportConversations.lastMessageAt), asc(supportConversations.merchantId)).limit(page.limit).offset(page.offset));
  const ids = rows.map((r) => r.lastMessageId!);
  const last = ids.length === 0 ? [] : await ex.select().from(supportMessages).where(sql`${supportMessages.id} = any(string_to_array(${ids.join(',')}, ','))`);
  const byId = new Map(last.map((m) => [m.id, m]));
  return {
    conversations: rows.map((r) => ({
      merchant_id: r.merchantId,
      merchant_name: r.merchantName,
      last_message: messageJson(byId.get(r.lastMessageId!)!),
      unread: Number(r.unread),
    })),
    total,
  };
}
