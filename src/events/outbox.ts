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

export async function appendEvent(tx: Executor, e: NewEvent): Promise<StoredEvent> {
  // The event and its place in the dispatcher's queue (outbox_pending), in one statement.
  const [row] = await queryRows<{ seq: string | number | bigint; id: string; created_at: Date | string }>(tx, sql`
    with e as (
      insert into events (id, type, merchant_id, payment_id, livemode, data, webhook_url, created_at)
      values (${newEventId(e.at)}, ${e.type}, ${e.merchantId ?? null}, ${e.paymentId ?? null}, ${e.livemode},
        ${JSON.stringify(e.data)}::jsonb, ${e.webhookUrl ?? null}, ${e.at.toISOString()}::timestamptz)
      returning seq, id, created_at
    ),
    q as (insert into outbox_pending (seq) select seq from e)
    select seq, id, created_at from e`);
  return {
    seq: Number(row.seq), id: row.id, type: e.type, merchantId: e.merchantId ?? null, paymentId: e.paymentId ?? null,
    livemode: e.livemode, data: e.data, webhookUrl: e.webhookUrl ?? null, createdAt: new Date(row.created_at),
  };
}
