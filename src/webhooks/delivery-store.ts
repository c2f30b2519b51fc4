// Reading and changing deliveries for the API (spec 4.4 "Webhook and deliveries", part 3 delivery
// status): lists, one delivery, redeliver, resolve; and the figures other rooms show.
import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm';
import { queryRows, withTotal, type Executor, type Tx } from '../platform/db/index.ts';
import { badRequest, conflict, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { isIdShaped, longerThan, oneOfFilter } from '../platform/fields.ts';
import { events, type Announced, type NewEvent, type OutboxDispatcher } from '../events/index.ts';
import { destinationKey, MAX_ATTEMPTS } from './core.ts';
import { deliveryFromSql, deliveryJson, HISTORY_KEPT } from './delivery-json.ts';
import { DELIVERY_STATUSES, deliveries, type DeliveryRow, type DeliveryStatus, type DeliveryTarget, type HistoryEntry } from './schema.ts';

export const DELIVERY_EVENT = 'webhook:delivery';
export const REDELIVERY_QUEUED = 'redelivery queued';
/** 409 of resolving a delivery that is not failed, naming its status. */
export const onlyFailedResolve = (status: string): string => `only a failed delivery can be resolved: this one is ${status}`;
export const STATUS_FILTER_MESSAGE = `status must be one of ${DELIVERY_STATUSES.join(', ')}`;
export const NOTE_MESSAGE = 'note must be a string of up to 500 characters';
/** `before` of the deliveries list: the last delivery of the page already shown (the cursor). */
export const BEFORE_MESSAGE = 'before must be the id of a delivery of this account';
const NOTE_MAX = 500;

export interface NewDelivery {
  merchantId: string;
  livemode: boolean;
  target: DeliveryTarget;
  url: string;
  paymentId: string | null;
  eventId: string;
  eventType: string;
  payload: string;
  at: Date;
}

/** Inserts deliveries, skipping any (event, target) already queued; returns the rows inserted. */
export async function insertDeliveries(ex: Executor, items: NewDelivery[]): Promise<DeliveryRow[]> {
  if (items.length === 0) return [];
  // One statement whatever the batch size: the rows travel as one JSON parameter.
  const json = JSON.stringify(items.map((d) => ({
    id: newId('dlv', d.at), merchant_id: d.merchantId, livemode: d.livemode, target: d.target, url: d.url,
    host: destinationKey(d.url), payment_id: d.paymentId, event_id: d.eventId, event_type: d.eventType,
    payload: d.payload, at: d.at.toISOString(),
  })));
  const rows = await queryRows<Record<string, unknown>>(ex, sql`
    insert into deliveries (id, merchant_id, livemode, target, url, host, payment_id, event_id, event_type, payload,
      status, attempts, max_attempts, next_attempt_at, history, created_at)
    select v.id, v.merchant_id, v.livemode, v.target, v.url, v.host, v.payment_id, v.event_id, v.event_type, v.payload,
      'pending', 0, ${MAX_ATTEMPTS}, v.at, '[]'::jsonb, v.at
    from jsonb_to_recordset(${json}::jsonb) as v(id text, merchant_id text, livemode boolean, target text, url text,
      host text, payment_id text, event_id text, event_type text, payload text, at timestamptz)
    on conflict (event_id, target) do nothing
    returning *`);
  return rows.map(deliveryFromSql);
}

/** SQL that appends one history entry, keeping the latest 50 (safe against concurrent writers). */
export function appendHistory(entry: HistoryEntry): SQL {
  const json = JSON.stringify(entry);
  return sql`case when jsonb_array_length(${deliveries.history}) >= ${HISTORY_KEPT}
    then (${deliveries.history} - 0) || jsonb_build_array(${json}::jsonb)
    else ${deliveries.history} || jsonb_build_array(${json}::jsonb) end`;
}

/** Where `webhook:delivery` goes: announced (socket-only, never stored), see src/events/announce.ts. */
export type Announcer = Pick<OutboxDispatcher, 'announce' | 'announced'>;

/** What tells the dashboard about a delivery (socket `webhook:delivery`), without its history. */
export function deliveryEvent(row: DeliveryRow, at: Date): NewEvent {
  return { type: DELIVERY_EVENT, livemode: row.livemode, merchantId: row.merchantId, paymentId: row.paymentId, data: deliveryJson(row), at };
}

/** A change of a delivery and its announcement; `announced` goes to Announcer.announced() after the commit. */
export interface AnnouncedChange {
  row: DeliveryRow;
  announced: Announced;
}

export const parseStatusFilter = (v: unknown): DeliveryStatus | undefined => oneOfFilter(v, DELIVERY_STATUSES, STATUS_FILTER_MESSAGE);

export function parseNote(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || longerThan(v, NOTE_MAX)) throw badRequest(NOTE_MESSAGE);
  return v.trim() === '' ? null : v.trim();
}

export interface DeliveryListQuery {
  merchantId?: string;
  livemode?: boolean;
  status?: DeliveryStatus;
  limit: number;
  /** Only deliveries after this one in the list's order (older): keyset paging, stable while new ones arrive. */
  before?: string;
}

export async function listDeliveries(ex: Executor, q: DeliveryListQuery): Promise<DeliveryRow[]> {
  let after: SQL | undefined;
  if (q.before !== undefined) {
    const [cursor] = isIdShaped(q.before)
      ? await ex.select({ id: deliveries.id }).from(deliveries).where(and(eq(deliveries.id, q.before), q.merchantId !== undefined ? eq(deliveries.merchantId, q.merchantId) : undefined))
      : [];
    if (!cursor) throw badRequest(BEFORE_MESSAGE);
    // Compared in SQL: the cursor's created_at keeps its microseconds, which a JS Date would drop.
    after = sql`(${deliveries.createdAt}, ${deliveries.id}) < (select c.created_at, c.id from deliveries c where c.id = ${q.before})`;
  }
  const where = [
    q.merchantId !== undefined ? eq(deliveries.merchantId, q.merchantId) : undefined,
    q.livemode !== undefined ? eq(deliveries.livemode, q.livemode) : undefined,
    q.status !== undefined ? eq(deliveries.status, q.status) : undefined,
    after,
  ].filter((c) => c !== undefined);
  return ex.select().from(deliveries).where(and(...where))
    .orderBy(desc(deliveries.createdAt), desc(deliveries.id)).limit(q.limit);
}

/** The operator's list (GET /admin/deliveries): every merchant's, newest first, paged by offset with the total as the other operator lists. */
export async function deliveriesForOperator(ex: Executor, status: DeliveryStatus | undefined, limit: number, offset: number): Promise<{ rows: DeliveryRow[]; total: number }> {
  const where = status !== undefined ? eq(deliveries.status, status) : undefined;
  return withTotal(ex, deliveries, where, ex.select().from(deliveries).where(where).orderBy(desc(deliveries.createdAt), desc(deliveries.id)).limit(limit).offset(offset));
}

export async function findDelivery(ex: Executor, merchantId: string, id: string, lock = false): Promise<DeliveryRow> {
  const query = ex.select().from(deliveries).where(and(eq(deliveries.id, id), eq(deliveries.merchantId, merchantId)));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw notFound();
  return row;
}

/**
 * Any status back to `pending` with attempts 0: seven more tries, to the URL and with the secret of
 * the moment of each attempt. An attempt in flight finds its claim gone and records only its history.
 */
export async function redeliver(tx: Tx, announcer: Announcer, merchantId: string, id: string, who: string, at: Date, currentUrl: string | null): Promise<AnnouncedChange> {
  const row = await findDelivery(tx, merchantId, id, true);
  const url = row.target === 'account' && currentUrl ? currentUrl : row.url;
  const [updated] = await tx.update(deliveries).set({
    status: 'pending', attempts: 0, maxAttempts: MAX_ATTEMPTS, nextAttemptAt: at, claim: null, leaseUntil: null,
    url, host: destinationKey(url ?? ''), resolvedAt: null, resolutionNote: null,
    history: appendHistory({ at: at.toISOString(), note: `redelivery requested by ${who}` }),
  }).where(eq(deliveries.id, row.id)).returning();
  return { row: updated, announced: await announcer.announce(tx, [deliveryEvent(updated, at)]) };
}

/** A failed delivery closed by the team: `resolved`, with when, and an optional note. */
export async function resolveDelivery(tx: Tx, announcer: Announcer, merchantId: string, id: string, who: string, note: string | null, at: Date): Promise<AnnouncedChange> {
  const row = await findDelivery(tx, merchantId, id, true);
  if (row.status !== 'failed') throw conflict(onlyFailedResolve(row.status));
  const [updated] = await tx.update(deliveries).set({
    status: 'resolved', resolvedAt: at, resolutionNote: note,
    history: appendHistory({ at: at.toISOString(), note: `resolved by ${who}${note ? `: ${note}` : ''}` }),
  }).where(eq(deliveries.id, row.id)).returning();
  return { row: updated, announced: await announcer.announce(tx, [deliveryEvent(updated, at)]) };
}

/** Deliveries that gave up, for the dashboard's `failed_webhooks` figure. */
export async function countFailedDeliveries(ex: Executor, merchantId: string, livemode: boolean): Promise<number> {
  const [r] = await ex.select({ n: sql<number>`count(*)::int` }).from(deliveries)
    .where(and(eq(deliveries.merchantId, merchantId), eq(deliveries.livemode, livemode), eq(deliveries.status, 'failed')));
  return Number(r.n);
}

/**
 * A payment's deliveries with their history, oldest first, for the payment trail. Events raised
 * together (spec 6.1: one deposit may raise payment.detecting and payment.late_deposit, or
 * detecting then confirmed) share created_at, and a delivery id's tail is random: within the same
 * moment they follow their events' order (seq), as the trail's `events` do, not a coin toss.
 */
export async function deliveriesForPayment(ex: Executor, paymentId: string): Promise<Record<string, unknown>[]> {
  const rows = await ex.select({ d: deliveries }).from(deliveries).leftJoin(events, eq(events.id, deliveries.eventId))
    .where(eq(deliveries.paymentId, paymentId)).orderBy(asc(deliveries.createdAt), asc(events.seq), asc(deliveries.id));
  return rows.map(({ d }) => deliveryJson(d, { history: true }));
}
