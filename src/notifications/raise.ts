// Raising a notification: the stored row and its `notification` dashboard event, written in the
// caller's transaction, so a change and the notification of it commit together or not at all.
import { newId } from '../platform/ids.ts';
import type { Executor } from '../platform/db/index.ts';
import { appendEvent } from '../events/index.ts';
import { isModeless, type Category } from './categories.ts';
import { notifications, type NotificationRow } from './schema.ts';
import { notificationJson, type NotificationJson } from './json.ts';

/** Outbox type of a new notification; the realtime room sends it to the roles of its category. */
export const NOTIFICATION_EVENT = 'notification';
/** Outbox type of read marks; the realtime room sends it to the reader's sockets only. */
export const NOTIFICATION_READ_EVENT = 'notification:read';

export interface NewNotification {
  merchantId: string;
  category: Category;
  /** Ignored for categories that belong to no mode (always true there). */
  livemode?: boolean;
  title: string;
  body: string;
  /** The id of what it is about (a payout, an address, a member…). */
  subject?: string | null;
  at: Date;
}

/**
 * Stores a notification for the merchant's team and tells the dashboard (`notification` to the
 * members whose role may see its category). Call it inside the transaction of the change it
 * reports; it returns the notification object of the API.
 */
export async function raiseNotification(tx: Executor, n: NewNotification): Promise<NotificationJson> {
  const row: Omit<NotificationRow, 'seq'> = {
    id: newId('ntf', n.at), merchantId: n.merchantId, livemode: isModeless(n.category) ? true : n.livemode ?? true,
    category: n.category, title: n.title, body: n.body, subject: n.subject ?? null, createdAt: n.at,
  };
  await tx.insert(notifications).values(row);
  const json = notificationJson(row, null);
  await appendEvent(tx, { type: NOTIFICATION_EVENT, livemode: row.livemode, merchantId: n.merchantId, data: json, at: n.at });
  return json;
}
