// The support chat's message object and its socket events (CONTRACT.md "Support chat").
import type { Executor } from '../platform/db/index.ts';
import { badRequest } from '../platform/errors.ts';
import { longerThan, refuseNul } from '../platform/fields.ts';
import { appendEvent } from '../events/index.ts';
import type { MessageRow, Side } from './schema.ts';

export const SUPPORT_MESSAGE = 'support:message';
export const SUPPORT_MESSAGE_UPDATE = 'support:message:update';
export const SUPPORT_READ = 'support:read';
export const SUPPORT_TYPING = 'support:typing';

export const BODY_INVALID = 'body is required (up to 4000 characters)';
export const MAX_BODY = 4000;
/** How support signs its messages when the operator gives no name. */
export const DEFAULT_SUPPORT_NAME = 'Support';
export const MAX_SUPPORT_NAME = 100;

export function messageJson(m: MessageRow): Record<string, unknown> {
  return {
    id: m.id,
    merchant_id: m.merchantId,
    side: m.side,
    author: m.author,
    body: m.body,
    created_at: m.createdAt.toISOString(),
    ...(m.editedAt ? { edited_at: m.editedAt.toISOString() } : {}),
    ...(m.deletedAt ? { deleted_at: m.deletedAt.toISOString() } : {}),
  };
}

/**
 * A message body: at most 4000 characters as sent (the document's maxLength: what a client checks
 * is what is refused), something left once white space at either end is trimmed, no NUL; kept trimmed.
 */
export function requireBody(v: unknown): string {
  if (typeof v !== 'string' || longerThan(v, MAX_BODY)) throw badRequest(BODY_INVALID);
  const body = v.trim();
  if (!body) throw badRequest(BODY_INVALID);
  refuseNul('body', body);
  return body;
}

/** The read mark of one side: when it last read, and what it has left unread (0 right after). */
export interface ReadMark {
  side: Side;
  read_at: string;
  unread: number;
}

// Socket events, written in the transaction of the change (support events are of no mode).
export const emitMessage = (tx: Executor, type: typeof SUPPORT_MESSAGE | typeof SUPPORT_MESSAGE_UPDATE, m: MessageRow, at: Date) =>
  appendEvent(tx, { type, livemode: false, merchantId: m.merchantId, data: messageJson(m), at });

export const emitRead = (tx: Executor, merchantId: string, mark: ReadMark, at: Date) =>
  appendEvent(tx, { type: SUPPORT_READ, livemode: false, merchantId, data: mark, at });
