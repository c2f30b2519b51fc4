// The support chat's use cases (CONTRACT.md "Support chat", operator rows of "Operator API"): the
// merchant's team writes, edits, deletes and reads; the operator lists conversations, replies and
// reads. Each change and its socket event commit together; every operator action is audited with
// actor kind `admin`.
import { eq } from 'drizzle-orm';
import type { Platform } from '../platform/context.ts';
import type { Tx } from '../platform/db/index.ts';
import { conflict, forbidden, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { isIdShaped, optionalText } from '../platform/fields.ts';
import { listParams, LIST_DEFAULT } from '../platform/list-params.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { INSUFFICIENT_PERMISSIONS, merchants, type UserAuth } from '../accounts/index.ts';
import { supportMessages, type Author, type MessageRow, type Side } from './schema.ts';
import {
  DEFAULT_SUPPORT_NAME, MAX_SUPPORT_NAME, SUPPORT_MESSAGE, SUPPORT_MESSAGE_UPDATE, emitMessage, emitRead, messageJson, requireBody, type ReadMark,
} from './messages.ts';
import { conversationsPage, findMessage, markRead, messagesPage, touchConversation, unreadBy } from './conversation.ts';
import { notifyReply } from './notifier.ts';

export const MESSAGE_DELETED = 'this message was deleted: it cannot be edited';

type Query = Record<string, unknown>;

export class SupportService {
  readonly platform: Platform;

  constructor(platform: Platform) {
    this.platform = platform;
  }

  #now(): Date {
    return this.platform.clock.now();
  }

  // ---- the merchant's side

  messages(merchantId: string, query: Query) {
    return messagesPage(this.platform.db.orm, merchantId, 'merchant', query);
  }

  async post(member: UserAuth, body: unknown): Promise<MessageRow> {
    const text = requireBody(body);
    const author: Author = { id: member.userId, email: member.email, role: member.role };
    return this.platform.db.transaction((tx) => this.#insert(tx, member.merchantId, 'merchant', author, member.userId, text));
  }

  /** Only its author edits a message; a deleted one stays deleted. */
  async edit(member: UserAuth, id: string, body: unknown): Promise<MessageRow> {
    const text = requireBody(body);
    return this.#change(member, id, (m) => {
      if (m.side !== 'merchant' || m.authorUserId !== member.userId) throw forbidden(INSUFFICIENT_PERMISSIONS);
      if (m.deletedAt) throw conflict(MESSAGE_DELETED);
      return m.body === text ? null : { body: text, editedAt: this.#now() };
    });
  }

  /** Its author, or an owner, deletes a message of the team; deleting it again changes nothing. */
  async remove(member: UserAuth, id: string): Promise<MessageRow> {
    return this.#change(member, id, (m) => {
      const mayDelete = m.side === 'merchant' && (m.authorUserId === member.userId || member.role === 'owner');
      if (!mayDelete) throw forbidden(INSUFFICIENT_PERMISSIONS);
      return m.deletedAt ? null : { body: '', deletedAt: this.#now() };
    });
  }

  async #change(member: UserAuth, id: string, decide: (m: MessageRow) => Partial<MessageRow> | null): Promise<MessageRow> {
    if (!isIdShaped(id)) throw notFound();
    return this.platform.db.transaction(async (tx) => {
      const m = await findMessage(tx, member.merchantId, id, true);
      if (!m) throw notFound();
      const set = decide(m);
      if (!set) return m;
      const [row] = await tx.update(supportMessages).set(set).where(eq(supportMessages.id, m.id)).returning();
      await emitMessage(tx, SUPPORT_MESSAGE_UPDATE, row, this.#now());
      return row;
    });
  }

  read(merchantId: string): Promise<ReadMark> {
    return this.platform.db.transaction((tx) => this.#read(tx, merchantId, 'merchant', this.#now()));
  }

  // ---- the operator's side

  async conversations(query: Query) {
    const page = listParams(query, LIST_DEFAULT);
    return { ...(await conversationsPage(this.platform.db.orm, page)), limit: page.limit, offset: page.offset };
  }

  async operatorMessages(merchantId: string, query: Query) {
    await this.#merchantExists(merchantId);
    return messagesPage(this.platform.db.orm, merchantId, 'support', query);
  }

  /** A reply from support, signed with the operator's `name` (default `Support`); raises the notification. */
  async reply(merchantId: string, body: Record<string, unknown>, actor: Actor): Promise<MessageRow> {
    const text = requireBody(body.body);
    const name = optionalText('name', body.name, MAX_SUPPORT_NAME) || DEFAULT_SUPPORT_NAME;
    await this.#merchantExists(merchantId);
    return this.platform.db.transaction(async (tx) => {
      const row = await this.#insert(tx, merchantId, 'support', { name }, null, text);
      const message = messageJson(row);
      await recordAudit(tx, { merchantId, action: 'support_message.created', actor, subject: row.id, after: message, at: row.createdAt });
      await notifyReply(tx, { merchantId, message: { id: row.id, body: text }, at: row.createdAt });
      return row;
    });
  }

  async operatorRead(merchantId: string, actor: Actor): Promise<ReadMark> {
    await this.#merchantExists(merchantId);
    return this.platform.db.transaction(async (tx) => {
      const now = this.#now();
      const mark = await this.#read(tx, merchantId, 'support', now);
      await recordAudit(tx, { merchantId, action: 'support.read', actor, subject: merchantId, after: mark, at: now });
      return mark;
    });
  }

  // ---- shared

  async #insert(tx: Tx, merchantId: string, side: Side, author: Author, authorUserId: string | null, body: string): Promise<MessageRow> {
    const now = this.#now();
    const [row] = await tx.insert(supportMessages).values({ id: newId('msg', now), merchantId, side, author, authorUserId, body, createdAt: now }).returning();
    await touchConversation(tx, row);
    await emitMessage(tx, SUPPORT_MESSAGE, row, now);
    return row;
  }

  async #read(tx: Tx, merchantId: string, side: Side, now: Date): Promise<ReadMark> {
    const readAt = await markRead(tx, merchantId, side, now);
    // nothing is left unread up to this request's own mark; a later mark kept may have some after it
    const unread = readAt.getTime() === now.getTime() ? 0 : await unreadBy(tx, merchantId, side);
    const mark: ReadMark = { side, read_at: readAt.toISOString(), unread };
    await emitRead(tx, merchantId, mark, now);
    return mark;
  }

  async #merchantExists(merchantId: string): Promise<void> {
    if (!isIdShaped(merchantId)) throw notFound();
    const [m] = await this.platform.db.orm.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchantId)).limit(1);
    if (!m) throw notFound();
  }
}
