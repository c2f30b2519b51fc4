// The deliveries table as a queue (DESIGN: FOR UPDATE SKIP LOCKED on next_attempt_at). A worker
// claims due rows (pending and due, or `sending` whose lease ran out because the process holding
// it died), moving them to `sending` under a claim token and a lease; it records each attempt
// with a compare-and-set on that token, so of several processes only the claimant writes it.
// A test ping may go in `pending` yet already claimed by the worker of the process that queued it
// (ping.ts): the claim skips such a row until its lease runs out, and the record takes it as any.
import { and, asc, eq, gt, inArray, lte, notInArray, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Database, type Tx } from '../platform/db/index.ts';
import { randomHex } from '../platform/ids.ts';
import { deliveryFromSql, HISTORY_KEPT } from './delivery-json.ts';
import { afterFailedAttempt, destinationKey } from './core.ts';
import { appendHistory, deliveryEvent, type Announcer } from './delivery-store.ts';
import { deliveries, type DeliveryRow, type HistoryEntry } from './schema.ts';
import { notifications, raiseNotification } from '../notifications/index.ts';
import type { NewEvent } from '../events/index.ts';

// What an attempt and its dashboard event read of a claimed row: not the history (up to 50
// entries), nor what the claim itself set or a claimable row cannot have (filled in by claimedRow).
const CLAIMED_COLUMNS = sql.raw(`d.id, d.merchant_id, d.livemode, d.target, d.url, d.host, d.payment_id, d.event_id, d.event_type,
  d.payload, d.attempts, d.max_attempts, d.next_attempt_at, d.last_status_code, d.last_error, d.last_attempt_at, d.delivered_at,
  d.created_at`);

/**
 * The statuses a row under a claim can have: `sending` when the queue claimed it, `pending` when a
 * ping went in already claimed (ping.ts). Giving back and recording match the claim in either.
 */
const UNDER_CLAIM = ['sending', 'pending'] as const;

/** A row as claimed: `sending` under the claim; resolved_at and its note are cleared by every path back to pending. */
function claimedRow(r: Record<string, unknown>, claim: string, leaseUntil: Date): DeliveryRow {
  return deliveryFromSql({ ...r, status: 'sending', claim, lease_until: leaseUntil, resolved_at: null, resolution_note: null, history: [] });
}

export interface Claimed {
  /** The row as claimed, its history left out (empty): an attempt never needs it. */
  row: DeliveryRow;
  claim: string;
}

/**
 * Takes up to `limit` due deliveries, leaving out hosts that have no room now: rows whose lease ran
 * out (rare), then pending rows in due order, each by its own partial index, in one statement
 * (a pending row under a live lease is a ping being attempted by the process that queued it).
 */
export async function claimDue(db: Database, now: Date, leaseMs: number, limit: number, busyHosts: string[]): Promise<Claimed[]> {
  const claim = randomHex(12);
  const at = now.toISOString();
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const hosts = sql`(select jsonb_array_elements_text(${JSON.stringify(busyHosts)}::jsonb))`;
  const rows = await queryRows<Record<string, unknown>>(db.orm, sql`
    update deliveries d set status = 'sending', claim = ${claim}, lease_until = ${leaseUntil.toISOString()}::timestamptz
    where d.id = any((
      array(select id from deliveries where status = 'sending' and lease_until <= ${at}::timestamptz and host not in ${hosts}
            order by lease_until limit ${limit} for update skip locked)
      || array(select id from deliveries where status = 'pending' and next_attempt_at <= ${at}::timestamptz and host not in ${hosts}
            and (lease_until is null or lease_until <= ${at}::timestamptz)
            order by next_attempt_at limit ${limit} for update skip locked))[1:${limit}])
    returning ${CLAIMED_COLUMNS}`);
  return rows.map((r) => ({ row: claimedRow(r, claim, leaseUntil), claim }));
}

/** Gives claimed rows back untouched (their host filled up meanwhile, or the worker is stopping); a ping claimed as it went in is `pending` already. */
export async function releaseClaims(db: Database, claimed: Claimed[]): Promise<void> {
  for (const claim of new Set(claimed.map((c) => c.claim))) {
    const ids = claimed.filter((c) => c.claim === claim).map((c) => c.row.id);
    await db.orm.update(deliveries).set({ status: 'pending', claim: null, leaseUntil: null })
      .where(and(inArray(deliveries.id, ids), inArray(deliveries.status, [...UNDER_CLAIM]), eq(deliveries.claim, claim)));
  }
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

interface Written {
  c: Claimed;
  o: AttemptOutcome;
}

// One attempt as the columns it sets, for the batch update below, and the row it leaves (the
// claimed row with those columns: the update is a compare-and-set on the claim, so nothing else
// changed the row meanwhile, and it need not be read back).
function columnsOf({ c, o }: Written, delaysS: readonly number[]): { set: Record<string, unknown>; row: DeliveryRow } {
  const made = c.row.attempts + 1;
  const next = o.ok ? null : afterFailedAttempt(made, delaysS, o.endedAt);
  const entry: HistoryEntry = {
    at: o.startedAt.toISOString(),
    ...(o.url !== null ? { url: o.url } : {}),
    ...(o.signedAt !== undefined ? { signed: o.signedAt } : {}),
    ...(o.statusCode !== undefined ? { status_code: o.statusCode } : {}),
    ...(o.error !== undefined ? { error: o.error } : {}),
    response: o.response,
    millis: o.millis,
  };
  const status = o.ok ? 'delivered' : next!.status;
  const nextAt = next?.status === 'pending' ? next.nextAttemptAt : null;
  const host = o.url !== null ? destinationKey(o.url) : null;
  const set = {
    id: c.row.id, claim: c.claim, status, attempts: made, next_attempt_at: nextAt?.toISOString() ?? null, url: o.url, host,
    last_status_code: o.statusCode ?? null, last_error: o.error ?? null, last_attempt_at: entry.at,
    delivered_at: o.ok ? o.endedAt.toISOString() : null, entry,
  };
  const row: DeliveryRow = {
    ...c.row, status, attempts: made, nextAttemptAt: nextAt ?? c.row.nextAttemptAt, claim: null, leaseUntil: null,
    url: o.url ?? c.row.url, host: host ?? c.row.host, lastStatusCode: o.statusCode ?? null, lastError: o.error ?? null,
    lastAttemptAt: o.startedAt, deliveredAt: o.ok ? o.endedAt : c.row.deliveredAt,
  };
  return { set, row };
}

const COLUMNS = sql.raw(`id text, claim text, status text, attempts int, next_attempt_at timestamptz, url text, host text,
  last_status_code int, last_error text, last_attempt_at timestamptz, delivered_at timestamptz, entry jsonb`);

const GAVE_UP_TITLE = 'Webhook delivery failed';
/** A dead endpoint makes every delivery give up: the team is told at most once in this time, per mode. */
export const GAVE_UP_NOTICE_EVERY_MS = 3_600_000;

/**
 * The endpoint as a notification names it: its query and fragment, where a receiver may keep a
 * token (`?key=…`), left out, since notifications are listed to every member who sees the category
 * and may be e-mailed.
 */
export function urlShown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}${u.search || u.hash ? '?…' : ''}`;
  } catch {
    return 'the webhook URL';
  }
}

/** Whether this delivery was told of: false when another one of its mode was, within the hour. */
async function notifyGaveUp(tx: Tx, row: DeliveryRow, at: Date): Promise<boolean> {
  const since = new Date(at.getTime() - GAVE_UP_NOTICE_EVERY_MS);
  const [recent] = await tx.select({ seq: notifications.seq }).from(notifications).where(and(
    eq(notifications.merchantId, row.merchantId), eq(notifications.livemode, row.livemode),
    eq(notifications.category, 'webhooks'), eq(notifications.title, GAVE_UP_TITLE), gt(notifications.createdAt, since),
  )).limit(1);
  if (recent) return false;
  await raiseNotification(tx, {
    merchantId: row.merchantId, category: 'webhooks', livemode: row.livemode, title: GAVE_UP_TITLE, subject: row.id, at,
    body: `The ${row.eventType} event could not be delivered to ${row.url ? urlShown(row.url) : 'the webhook URL'} after ${row.attempts} attempts${row.lastError ? ` (${row.lastError})` : ''}.`,
  });
  return true;
}

/**
 * Writes attempts, each with its own state: `delivered`, or `pending` at the next time of the
 * schedule counted from the end of the attempt, or `failed` after the 7th; one history entry each.
 * The write is a compare-and-set on the claim: when the claim is gone (redelivered or taken over
 * meanwhile) only the history learns of the attempt. The dashboard is told of each (`webhook:delivery`,
 * a socket-only event announced in the same transaction: src/events/announce.ts).
 * Many attempts share one transaction, which is what lets a worker keep up with fast receivers.
 */
export async function recordAttempts(db: Database, announcer: Announcer, items: Written[], delaysS: readonly number[]): Promise<void> {
  if (items.length === 0) return;
  const cols = items.map((w) => columnsOf(w, delaysS));
  const json = JSON.stringify(cols.map((x) => x.set));
  // Silent: a commit that put nothing in the outbox must not wake the dispatcher (announced() and
  // the notification below wake it when something was).
  const { announced, stored } = await db.transaction(async (tx) => {
    const done = new Set((await queryRows<{ id: string }>(tx, sql`
      update deliveries d set
        status = v.status, attempts = v.attempts, next_attempt_at = coalesce(v.next_attempt_at, d.next_attempt_at),
        claim = null, lease_until = null, url = coalesce(v.url, d.url), host = coalesce(v.host, d.host),
        last_status_code = v.last_status_code, last_error = v.last_error, last_attempt_at = v.last_attempt_at,
        delivered_at = coalesce(v.delivered_at, d.delivered_at),
        history = case when jsonb_array_length(d.history) >= ${HISTORY_KEPT}
          then (d.history - 0) || jsonb_build_array(v.entry) else d.history || jsonb_build_array(v.entry) end
      from jsonb_to_recordset(${json}::jsonb) as v(${COLUMNS})
      where d.id = v.id and d.claim = v.claim and d.status in ${[...UNDER_CLAIM]}
      returning d.id`)).map((r) => r.id));
    // the dashboard's `webhook:delivery` of each attempt written, as of the attempt's end
    const told: NewEvent[] = [];
    let notified = false;
    for (const [i, { c, o }] of items.entries()) {
      if (done.has(c.row.id)) {
        const row = cols[i].row;
        told.push(deliveryEvent(row, o.endedAt));
        // A delivery that gave up with this attempt: the team is told (once an hour at most).
        if (row.status === 'failed' && await notifyGaveUp(tx, row, o.endedAt)) notified = true;
        continue;
      }
      const entry = { ...(cols[i].set.entry as HistoryEntry), note: 'recorded late: the delivery was redelivered or taken over meanwhile' };
      const [row] = await tx.update(deliveries).set({ history: appendHistory(entry) }).where(eq(deliveries.id, c.row.id)).returning();
      if (row) told.push(deliveryEvent(row, o.endedAt));
    }
    return { announced: await announcer.announce(tx, told), stored: notified };
  }, { silent: true });
  announcer.announced(stored ? { ...announced, stored: true } : announced);
}
