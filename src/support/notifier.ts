// A reply from support raises a notification of category `support` (CONTRACT.md "Notifications":
// "a reply from support"), inside the transaction that stores the reply, so the two commit
// together or not at all.
import type { Executor } from '../platform/db/index.ts';
import { raiseNotification } from '../notifications/index.ts';

export const REPLY_TITLE = 'Reply from support';
/** The notification's body: the start of the reply, enough to read in a list. */
const EXCERPT = 200;

export interface SupportReply {
  merchantId: string;
  /** The message object as the merchant sees it (side `support`). */
  message: { id: string; body: string };
  at: Date;
}

export async function notifyReply(tx: Executor, reply: SupportReply): Promise<void> {
  const text = reply.message.body;
  await raiseNotification(tx, {
    merchantId: reply.merchantId, category: 'support', title: REPLY_TITLE,
    body: text.length > EXCERPT ? `${text.slice(0, EXCERPT - 1)}…` : text, subject: reply.message.id, at: reply.at,
  });
}
