// The operator's view of e-mail (CONTRACT.md operator API, README "E-mail"): every merchant's queued
// mails, newest first, and a given-up one sent again. The body is never shown (the notification's
// text, which the merchant's team reads in the dashboard, or an invitation's accept link, a secret
// of the invitee); nothing of the SMTP server is stored.
import { desc, eq } from 'drizzle-orm';
import { withTotal, type Executor, type Orm } from '../platform/db/index.ts';
import { conflict, notFound } from '../platform/errors.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { MAIL_STATUSES, mailQueue, type MailRow, type MailStatus } from './schema.ts';

/** CONTRACT.md: /admin answers 400 to invalid values, as the other operator lists word it. */
export const MAIL_STATUS_INVALID = `status must be one of ${MAIL_STATUSES.join(', ')}`;
export const MAIL_NOT_FOUND = 'mail not found';
export const MAIL_NOT_FAILED = 'only a failed mail can be retried';
export const MAIL_RETRIED = 'mail.retried';

export function mailJson(r: MailRow): Record<string, unknown> {
  return {
    id: r.id,
    kind: r.kind,
    merchant_id: r.merchantId,
    // a notification's mail names its member and notification; an invitation's, its invitation
    user_id: r.userId,
    notification_id: r.notificationId,
    invitation_id: r.invitationId,
    to_address: r.toAddress,
    subject: r.subject,
    status: r.status,
    attempts: r.attempts,
    last_error: r.lastError,
    created_at: r.createdAt.toISOString(),
    // pending: when it is due; skipped or failed: when it was dropped or given up (queue.ts)
    next_attempt_at: r.nextAttemptAt.toISOString(),
    sent_at: r.sentAt?.toISOString() ?? null,
  };
}

export async function mailForOperator(orm: Orm, status: MailStatus | undefined, limit: number, offset: number): Promise<{ mail: MailRow[]; total: number }> {
  const where = status ? eq(mailQueue.status, status) : undefined;
  const { rows, total } = await withTotal(orm, mailQueue, where, orm.select().from(mailQueue).where(where).orderBy(desc(mailQueue.createdAt), desc(mailQueue.id)).limit(limit).offset(offset));
  return { mail: rows, total };
}

/**
 * A failed mail back to `pending`, due now, with its attempts counted again from none (the whole
 * retry schedule); audited on the merchant's log. Whether it may still go, and to which address, is
 * asked again when it is sent (recipient.ts), as for any attempt.
 */
export async function retryMail(tx: Executor, id: string, actor: Actor, now: Date): Promise<MailRow> {
  const [before] = await tx.select().from(mailQueue).where(eq(mailQueue.id, id)).for('update');
  if (!before) throw notFound(MAIL_NOT_FOUND);
  if (before.status !== 'failed') throw conflict(MAIL_NOT_FAILED);
  const [row] = await tx.update(mailQueue)
    .set({ status: 'pending', attempts: 0, nextAttemptAt: now, lastError: null, claim: null, leaseUntil: null })
    .where(eq(mailQueue.id, id)).returning();
  await recordAudit(tx, { merchantId: row.merchantId, action: MAIL_RETRIED, actor, subject: row.id, before: mailJson(before), after: mailJson(row), at: now });
  return row;
}
