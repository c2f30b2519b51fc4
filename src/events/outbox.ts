// Writing to the outbox. Always inside the transaction of the change the event records, so a
// change without its event (or an event without its change) can never be committed.
import { newEventId } from '../platform/ids.ts';
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../platform/db/index.ts';

export interface NewEvent {
  type: string;
  livemode: boolean;
  merchantId?: string | null;
  paymentId?: string | null;
  data: unknown;
  /** The payment's own webhook_url for payment.* and settlement.* events of a payment that has one. */
  webhookUrl?: string | null;
  at: Date;
}

export interface StoredEvent {
  seq: number;
  id: string;
  type: string;
  merchantId: string | null;
  paymentId: string | null;
  livemode: boolean;
  data: unknown;
  webhookUrl: string | null;
  createdAt: Date;
}

/**
 * Queues the events a statement inserts for the dispatcher: follows a CTE named `e` that inserted
 * them `returning seq`. Every writer of events ends its insert with it, in the same statement.
 */
export const QUEUE_INSERTED_EVENTS = 'insert into outbox_pending (seq) select seq from e';

/** An events row as a raw query returns it (int8 as text or bigint, depending on the engine). */
export interface EventRecord {
  seq: string | number | bigint; id: string; type: string; merchant_id: string | null; payment_id: string | null;
  livemode: boolean; data: unknown; webhook_url: string | null; created_at: Date | string;
}
export const EVENT_COLUMNS = ['seq', 'id', 'type', 'merchant_id', 'payment_id', 'livemode', 'data', 'webhook_url', 'created_at'] as const;
/** Every column but `data`: what the dispatcher reads first (see Subscriber.wants). */
export const HEAD_COLUMNS = EVENT_COLUMNS.filter((c) => c !== 'data');

/** An event without its data. */
export type EventHead = Omit<StoredEvent, 'data'>;

export const storedEvent = (r: EventRecord): StoredEvent => ({
  seq: Number(r.seq), id: r.id, type: r.type, merchantId: r.merchant_id, paymentId: r.payment_id,
  livemode: r.livemode, data: r.data, webhookUrl: r.webhook_url, createdAt: new Date(r.created_at),
});

export async function appendEvent(tx: Executor, e: NewEvent): Promise<StoredEvent> {
  // The event and its place in the dispatcher's queue (outbox_pending), in one statement.
  const [row] = await queryRows<EventRecord>(tx, sql`
    with e as (
      insert into events (id, type, merchant_id, payment_id, livemode, data, webhook_url, created_at)
      values (${newEventId(e.at)}, ${e.type}, ${e.merchantId ?? null}, ${e.paymentId ?? null}, ${e.livemode},
        ${JSON.stringify(e.data)}::jsonb, ${e.webhookUrl ?? null}, ${e.at.toISOString()}::timestamptz)
      returning ${sql.raw(EVENT_COLUMNS.join(', '))}
    ),
    q as (${sql.raw(QUEUE_INSERTED_EVENTS)})
    select * from e`);
  return storedEvent(row);
}

/**
 * Several events in one statement (a subscriber raising one per changed row of a batch), queued
 * for the dispatcher in the same statement, in the order given.
 */
export async function appendEvents(tx: Executor, list: readonly NewEvent[]): Promise<void> {
  if (list.length === 0) return;
  const rows = JSON.stringify(list.map((e, ord) => ({
    ord, id: newEventId(e.at), type: e.type, merchant_id: e.merchantId ?? null, payment_id: e.paymentId ?? null,
    livemode: e.livemode, data: e.data, webhook_url: e.webhookUrl ?? null, created_at: e.at.toISOString(),
  })));
  await tx.execute(sql`
    with e as (
      insert into events (id, type, merchant_id, payment_id, livemode, data, webhook_url, created_at)
      select x.id, x.type, x.merchant_id, x.payment_id, x.livemode, x.data, x.webhook_url, x.created_at
      from jsonb_to_recordset(${rows}::jsonb) as x(ord integer, id text, type text, merchant_id text, payment_id text, livemode boolean, data jsonb, webhook_url text, created_at timestamptz)
      order by x.ord
      returning seq
    ),
    q as (${sql.raw(QUEUE_INSERTED_EVENTS)})
    select count(*) from e`);
}
