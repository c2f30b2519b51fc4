// The deliveries table as a queue (DESIGN: FOR UPDATE SKIP LOCKED on next_attempt_at). A worker
// claims due rows (pending and due, or `sending` whose lease ran out because the process holding
// it died), moving them to `sending` under a claim token and a lease; it records each attempt
// with a compare-and-set on that token, so of several processes only the claimant writes it.
import { and, asc, eq, inArray, lte, notInArray, or, type SQL } from 'drizzle-orm';
import type { Database } from '../platform/db/index.ts';
import { randomHex } from '../platform/ids.ts';
import { afterFailedAttempt, destinationKey } from './core.ts';
import { announceDelivery, appendHistory } from './delivery-store.ts';
import { deliveries, type DeliveryRow, type HistoryEntry } from './schema.ts';

export interface Claimed {
  row: DeliveryRow;
  claim: string;
}

/** Takes up to `limit` due deliveries, leaving out hosts that have no room now. */
export async function claimDue(db: Database, now: Date, leaseMs: number, limit: number, busyHosts: string[]): Promise<Claimed[]> {
  const claim = randomHex(12);
  const due: SQL = or(
    and(eq(deliveries.status, 'pending'), lte(deliveries.nextAttemptAt, now)),
    and(eq(deliveries.status, 'sending'), lte(deliveries.leaseUntil, now)),
  )!;
  const where = busyHosts.length > 0 ? and(due, notInArray(deliveries.host, busyHosts)) : due;
  const rows = await db.transaction(async (tx) => {
    const ids = await tx.select({ id: deliveries.id }).from(deliveries).where(where)
      .orderBy(asc(deliveries.nextAttemptAt)).limit(limit).for('update', { skipLocked: true });
    if (ids.length === 0) return [];
    return tx.update(deliveries).set({ status: 'sending', claim, leaseUntil: new Date(now.getTime() + leaseMs) })
      .where(inArray(deliveries.id, ids.map((r) => r.id))).returning();
  }, { silent: true });
  return rows.map((row) => ({ row, claim }));
}

/** Gives claimed rows back untouched (their host filled up meanwhile, or the worker is stopping). */
export async function releaseClaims(db: Database, claimed: Claimed[]): Promise<void> {
  if (claimed.length === 0) return;
  await db.orm.update(deliveries).set({ status: 'pending', claim: null, leaseUntil: null })
    .where(and(inArray(deliveries.id, claimed.map((c) => c.row.id)), eq(deliveries.status, 'sending'), eq(deliveries.claim, claimed[0].claim)));
}

export interface AttemptOutcome {
  ok: boolean;
  /** Where the attempt went (null: the account URL was removed, nothing was posted). */
  url: string | null;
  statusCode?: number;
  error?: string;
  response: string;
  millis: number;
  signedAt?: number;
  startedAt: Date;
  endedAt: Date;
}

/**
 * Writes one attempt: `delivered`, or `pending` at the next time of the schedule counted from the
 * end of the attempt, or `failed` after the 7th. When the claim is gone (redelivered meanwhile) only
 * the history learns of it. Either way the dashboard is told (`webhook:delivery`).
 */
export async function recordAttempt(db: Database, c: Claimed, o: AttemptOutcome, delaysS: readonly number[]): Promise<DeliveryRow | null> {
  const made = c.row.attempts + 1;
  const entry: HistoryEntry = {
    at: o.startedAt.toISOString(),
    ...(o.url !== null ? { url: o.url } : {}),
    ...(o.signedAt !== undefined ? { signed: o.signedAt } : {}),
    ...(o.statusCode !== undefined ? { status_code: o.statusCode } : {}),
    ...(o.error !== undefined ? { error: o.error } : {}),
    response: o.response,
    millis: o.millis,
  };
  const next = o.ok ? null : afterFailedAttempt(made, delaysS, o.endedAt);
  return db.transaction(async (tx) => {
    let [row] = await tx.update(deliveries).set({
      status: o.ok ? 'delivered' : next!.status,
      attempts: made,
      ...(next?.status === 'pending' ? { nextAttemptAt: next.nextAttemptAt } : {}),
      claim: null,
      leaseUntil: null,
      ...(o.url !== null ? { url: o.url, host: destinationKey(o.url) } : {}),
      lastStatusCode: o.statusCode ?? null,
      lastError: o.error ?? null,
      lastAttemptAt: o.startedAt,
      ...(o.ok ? { deliveredAt: o.endedAt } : {}),
      history: appendHistory(entry),
    }).where(and(eq(deliveries.id, c.row.id), eq(deliveries.status, 'sending'), eq(deliveries.claim, c.claim))).returning();
    if (!row) {
      [row] = await tx.update(deliveries).set({ history: appendHistory({ ...entry, note: 'recorded late: the delivery was redelivered or taken over meanwhile' }) })
        .where(eq(deliveries.id, c.row.id)).returning();
    }
    if (row) await announceDelivery(tx, row, o.endedAt);
    return row ?? null;
  });
}
