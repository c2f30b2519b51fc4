// ============================================================================================
// NOTIFICATIONS HOOK (to connect): a reply from support raises a notification of category
// `support` (CONTRACT.md "Notifications": "Raised at least for: ... a reply from support").
// The notifications room is built elsewhere; this is the one call site. It runs inside the
// transaction that stores the reply, so the notification commits with it (or not at all).
// Wire it in src/services.ts: `new SupportService(platform, { notifyReply: (tx, r) => ... })`.
// Until then the default does nothing.
// ============================================================================================
import type { Tx } from '../platform/db/index.ts';

export interface SupportReply {
  merchantId: string;
  /** The message object as the merchant sees it (side `support`). */
  message: Record<string, unknown>;
  at: Date;
}

export type SupportReplyNotifier = (tx: Tx, reply: SupportReply) => Promise<void>;

export const NO_NOTIFICATION: SupportReplyNotifier = async () => {};
