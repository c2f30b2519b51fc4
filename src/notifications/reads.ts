// The notification list and read marks of one team member (CONTRACT.md "Notifications"). A member
// lists, counts and marks only the categories their role may see (categories.ts).
import { and, count, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/index.ts';
import { badRequest } from '../platform/errors.ts';
import { isLiveQuery } from '../platform/http/index.ts';
import { listParams } from '../platform/list-params.ts';
import { isIdShaped } from '../platform/fields.ts';
import { refuseNul } from '../platform/text-input.ts';
import { appendEvent } from '../events/index.ts';
import { CATEGORY_MESSAGE, isCategory, visibleTo, type Category, type Role } from './categories.ts';
import { notificationReads, notifications } from './schema.ts';
import { notificationJson } from './json.ts';
import { NOTIFICATION_READ_EVENT } from './raise.ts';

export const UNREAD_MESSAGE = 'unread must be true or false';
export const READ_BODY_MESSAGE = 'give ids (a list of up to 500 notification ids) or all: true';
export const LIVEMODE_MESSAGE = 'livemode must be true or false';
const MAX_IDS = 500;

export interface Reader { merchantId: string; userId: string; role: Role }

const readJoin = (userId: string) => and(eq(notificationReads.notificationId, notifications.id), eq(notificationReads.userId, userId));
const inMode = (r: Reader, livemode: boolean, categories: readonly Category[]) =>
  and(eq(notifications.merchantId, r.merchantId), eq(notifications.livemode, livemode), inArray(notifications.category, [...categories]));

function parseUnread(v: unknown): boolean {
  if (v === undefined || v === '' || v === 'false') return false;
  if (v === 'true') return true;
  throw badRequest(UNREAD_MESSAGE);
}

/** Unread notifications of a mode the reader may see. */
export async function unreadCount(ex: Executor, r: Reader, livemode: boolean): Promise<number> {
  const [row] = await ex.select({ n: count() }).from(notifications).leftJoin(notificationReads, readJoin(r.userId))
    .where(and(inMode(r, livemode, visibleTo(r.role)), isNull(notificationReads.readAt)));
  return Number(row.n);
}

/** `{notifications, total, unread, limit, offset}` newest first; query `mode`, `category`, `unread=true`, `limit`, `offset`. */
export async function listNotifications(db: Database, r: Reader, query: Record<string, unknown>): Promise<Record<string, unknown>> {
  const livemode = isLiveQuery(query);
  const category = query.category === undefined || query.category === '' ? undefined : query.category;
  if (category !== undefined && !isCategory(category)) throw badRequest(CATEGORY_MESSAGE);
  const onlyUnread = parseUnread(query.unread);
  const { limit, offset } = listParams(query);
  const categories = visibleTo(r.role).filter((c) => category === undefined || c === category);
  const unread = await unreadCount(db.orm, r, livemode);
  if (categories.length === 0) return { notifications: [], total: 0, unread, limit, offset };
  const conds: SQL[] = [inMode(r, livemode, categories)!];
  if (onlyUnread) conds.push(isNull(notificationReads.readAt));
  const where = and(...conds);
  const rows = await db.orm.select({ n: notifications, readAt: notificationReads.readAt }).from(notifications)
    .leftJoin(notificationReads, readJoin(r.userId)).where(where).orderBy(desc(notifications.seq)).limit(limit).offset(offset);
  const [total] = await db.orm.select({ n: count() }).from(notifications).leftJoin(notificationReads, readJoin(r.userId)).where(where);
  return { notifications: rows.map((x) => notificationJson(x.n, x.readAt)), total: Number(total.n), unread, limit, offset };
}

interface ReadRequest { ids: string[]; all: boolean; livemode: boolean }

function parseReadBody(body: Record<string, unknown>): ReadRequest {
  if (body.livemode !== undefined && typeof body.livemode !== 'boolean') throw badRequest(LIVEMODE_MESSAGE);
  const livemode = body.livemode ?? true;
  if (body.all === true) return { ids: [], all: true, livemode };
  const ids = body.ids;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_IDS || !ids.every((id) => typeof id === 'string' && id.length <= 100)) {
    throw badRequest(READ_BODY_MESSAGE);
  }
  for (const id of ids as string[]) refuseNul('ids', id);
  return { ids: [...new Set(ids as string[])], all: false, livemode };
}

/**
 * Marks `{ids}` (any mode) or `{all: true}` (every notification of `livemode`, default live) read
 * for the reader; answers the unread count of `livemode` and tells the reader's sockets
 * (`notification:read`). Marking again changes nothing.
 */
export async function markRead(db: Database, r: Reader, body: Record<string, unknown>, now: Date): Promise<{ unread: number }> {
  const req = parseReadBody(body);
  // An id of another shape names no notification: it is left out before any query.
  const ids = req.ids.filter(isIdShaped);
  return db.transaction(async (tx) => {
    const visible = visibleTo(r.role);
    const which = req.all
      ? inMode(r, req.livemode, visible)
      : and(eq(notifications.merchantId, r.merchantId), inArray(notifications.category, visible), inArray(notifications.id, ids.length > 0 ? ids : ['']));
    await tx.insert(notificationReads)
      .select(tx.select({
        userId: sql<string>`${r.userId}::text`.as('user_id'), notificationId: notifications.id,
        readAt: sql<Date>`${now.toISOString()}::timestamptz`.as('read_at'),
      }).from(notifications).where(which))
      .onConflictDoNothing();
    const unread = await unreadCount(tx, r, req.livemode);
    await appendEvent(tx, {
      type: NOTIFICATION_READ_EVENT, livemode: req.livemode, merchantId: r.merchantId,
      data: { user_id: r.userId, ids: req.ids, all: req.all, livemode: req.livemode, unread }, at: now,
    });
    return { unread };
  });
}
