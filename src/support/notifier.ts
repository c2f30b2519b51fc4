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
  await raiseNotification(tx, {
    merchantId: reply.merchantId, category: 'support', title: REPLY_TITLE,
    body: excerpt(reply.message.body), subject: reply.message.id, at: reply.at,
  });
}

/**
 * Up to EXCERPT UTF-16 units, never ending on the first half of a surrogate pair (an emoji): a
 * lone surrogate is text PostgreSQL's jsonb refuses, which failed the reply itself with 500.
 */
function excerpt(text: string): string {
  if (text.length <= EXCERPT) return text;
  let end = EXCERPT - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
