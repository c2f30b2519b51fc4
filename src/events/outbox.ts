// Writing to the outbox. Always inside the transaction of the change the event records, so a
// change without its event (or an event without its change) can never be committed.
import { newEventId } from '../platform/ids.ts';
import type { Executor } from '../platform/db/index.ts';
import { events } from './schema.ts';

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
  const [row] = await tx.insert(events).values({
    id: newEventId(e.at),
    type: e.type,
    merchantId: e.merchantId ?? null,
    paymentId: e.paymentId ?? null,
    livemode: e.livemode,
    data: e.data,
    webhookUrl: e.webhookUrl ?? null,
    createdAt: e.at,
  }).returning();
  return {
    seq: row.seq, id: row.id, type: row.type, merchantId: row.merchantId, paymentId: row.paymentId,
    livemode: row.livemode, data: row.data, webhookUrl: row.webhookUrl, createdAt: row.createdAt,
  };
}
