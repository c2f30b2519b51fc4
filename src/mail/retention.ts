// How long mail_queue keeps what is done (README "E-mail"): a sent or skipped mail 30 days after it
// was sent or dropped, a given-up one 90 days (longer: it is what an operator looks for when a
// member says a mail never came). Run every hour by the recurring work (src/workers.ts), in
// batches, so one run never holds a long transaction over a large backlog.
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../platform/db/index.ts';

export const MAIL_SENT_KEPT_DAYS = 30;
export const MAIL_FAILED_KEPT_DAYS = 90;
export const MAIL_PRUNE_WORK = 'mail.prune';
const DAY_MS = 86_400_000;
const BATCH = 1000;

/** Deletes what is past keeping; answers how many rows went. */
export async function pruneMail(db: Database, now: Date): Promise<number> {
  const sent = new Date(now.getTime() - MAIL_SENT_KEPT_DAYS * DAY_MS).toISOString();
  const failed = new Date(now.getTime() - MAIL_FAILED_KEPT_DAYS * DAY_MS).toISOString();
  let total = 0;
  for (;;) {
    // a skipped or failed row's next_attempt_at is when it was dropped or given up (queue.ts)
    const rows = await queryRows<{ id: string }>(db.orm, sql`
      delete from mail_queue where id in (select id from mail_queue where
        (status = 'sent' and sent_at < ${sent}::timestamptz)
        or (status = 'skipped' and next_attempt_at < ${sent}::timestamptz)
        or (status = 'failed' and next_attempt_at < ${failed}::timestamptz)
        limit ${BATCH})
      returning id`);
    total += rows.length;
    if (rows.length < BATCH) return total;
  }
}
