// The mail_queue table as a queue (as the webhook deliveries: FOR UPDATE SKIP LOCKED). A claim
// takes due rows (pending and due, or `sending` whose lease ran out because the process holding it
// died), counts the attempt and moves them to `sending` under a claim token and a lease; the
// outcome is written with a compare-and-set on that token, so of several processes only the
// claimant writes it.
//
// Delivery is at least once: a process that dies after the SMTP server took a mail and before the
// row is marked sent leaves it `sending`, and it is sent again when the lease runs out. Its
// Message-ID stays the same (the row's id), so mail clients that drop repeated ids show it once;
// losing a mail silently would be worse than a rare second copy. Each claim counts an attempt, so
// a mail whose sending kills the process is still given up after MAX_ATTEMPTS.
import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Database } from '../platform/db/index.ts';
import { randomHex } from '../platform/ids.ts';
import { retryDelay } from '../chains/transfers/backoff.ts';
import { mailQueue, type MailKind } from './schema.ts';

/** Seconds to wait after failed attempt 1, 2, …; the attempt after the last wait is the final one. */
export const MAIL_RETRY_DELAYS_S = [60, 300, 1800, 7200, 21600] as const;
/** After this many attempts a mail is given up (`failed`, its last error kept). */
export const MAIL_MAX_ATTEMPTS = MAIL_RETRY_DELAYS_S.length + 1;
const MAIL_RETRY_DELAYS_MS = MAIL_RETRY_DELAYS_S.map((s) => s * 1000);

export interface ClaimedMail { id: string; kind: MailKind; toAddress: string; subject: string; body: string; attempts: number; claim: string }

export async function claimDueMail(db: Database, now: Date, leaseMs: number, limit: number): Promise<ClaimedMail[]> {
  const claim = randomHex(12);
  const at = now.toISOString();
  const rows = await queryRows<{ id: string; kind: MailKind; to_address: string; subject: string; body: string; attempts: number }>(db.orm, sql`
    update mail_queue m set status = 'sending', claim = ${claim}, attempts = m.attempts + 1,
      lease_until = ${new Date(now.getTime() + leaseMs).toISOString()}::timestamptz
    where m.id = any((
      array(select id from mail_queue where status = 'sending' and lease_until <= ${at}::timestamptz
            order by lease_until limit ${limit} for update skip locked)
      || array(select id from mail_queue where status = 'pending' and next_attempt_at <= ${at}::timestamptz
            order by next_attempt_at limit ${limit} for update skip locked))[1:${limit}])
    returning m.id, m.kind, m.to_address, m.subject, m.body, m.attempts`);
  return rows.map((r) => ({ id: r.id, kind: r.kind, toAddress: r.to_address, subject: r.subject, body: r.body, attempts: Number(r.attempts), claim }));
}

/**
 * An invitation's body (its accept link, sealed) is erased once the mail is sent or skipped: it is
 * never needed again. A given-up one keeps it, sealed, for the operator's retry.
 */
const erased = (m: ClaimedMail) => (m.kind === 'invitation' ? { body: '' } : {});

/** Sent to `toAddress`: the member's address at send time (recipient.ts), kept as the one used. */
export async function markSent(db: Database, m: ClaimedMail, toAddress: string, now: Date): Promise<void> {
  await db.orm.update(mailQueue).set({ status: 'sent', toAddress, sentAt: now, claim: null, leaseUntil: null, lastError: null, ...erased(m) })
    .where(and(eq(mailQueue.id, m.id), eq(mailQueue.claim, m.claim)));
}

/** Not sent and never to be: its member may no longer have it (recipient.ts); `reason` kept in last_error. */
export async function markSkipped(db: Database, m: ClaimedMail, reason: string, now: Date): Promise<void> {
  // next_attempt_at: when it was dropped, which its keeping counts from (retention.ts)
  await db.orm.update(mailQueue).set({ status: 'skipped', claim: null, leaseUntil: null, lastError: reason, nextAttemptAt: now, ...erased(m) })
    .where(and(eq(mailQueue.id, m.id), eq(mailQueue.claim, m.claim)));
}

/** A failed attempt: due again after its delay, or given up after MAX_ATTEMPTS. */
export async function markFailed(db: Database, m: ClaimedMail, error: string, now: Date): Promise<'retry' | 'failed'> {
  // the transfers' schedule rule: the wait after `attempts` failures, none once past the list
  const delayMs = retryDelay(m.attempts, MAIL_RETRY_DELAYS_MS);
  const giveUp = delayMs === null;
  await db.orm.update(mailQueue).set({
    status: giveUp ? 'failed' : 'pending', claim: null, leaseUntil: null, lastError: error.slice(0, 500),
    nextAttemptAt: giveUp ? now : new Date(now.getTime() + delayMs),
  }).where(and(eq(mailQueue.id, m.id), eq(mailQueue.claim, m.claim)));
  return giveUp ? 'failed' : 'retry';
}
