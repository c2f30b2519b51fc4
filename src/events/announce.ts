// Socket-only events ("announcements"): events that only the sockets hear and nothing reads back
// (`webhook:delivery`, sent on every attempt of every delivery). Writing each to the events table
// and the outbox queue was a large part of what an attempt cost (issue 17): an events row and its
// index entries, an outbox_pending row added and deleted, and the dispatcher's transaction.
// An announcement is instead handed to the subscribers that take them (the realtime room) inside
// the writer's transaction, where PostgreSQL's NOTIFY is delivered only if that transaction
// commits (so the sockets hear of a change exactly when it is committed, as through the outbox),
// and again after the commit, for this process's own sockets.
//
// An announcement too big for one NOTIFY payload (under 8000 bytes) takes the outbox path as
// before: it is written to the events table in the same transaction and dispatched normally.
import type { Tx } from '../platform/db/index.ts';
import { newEventId } from '../platform/ids.ts';
import { appendEvents, type NewEvent, type StoredEvent } from './outbox.ts';

/** One announced event and its JSON (as a fan-out carries it). */
export interface Announcement {
  event: StoredEvent;
  json: string;
}

/** Room left in a NOTIFY payload (8000 bytes) for the fan-out's prefix and list brackets. */
export const ANNOUNCE_MAX_BYTES = 7800;

/** What the writer hands back after its commit (see OutboxDispatcher.announced). */
export interface Announced {
  list: Announcement[];
  /** Some went to the outbox instead (too big): the dispatcher is woken for them. */
  stored: boolean;
}

/** A socket-only event as a subscriber receives it: `seq` 0, as it has no row. */
export function announcement(e: NewEvent): Announcement {
  const event: StoredEvent = {
    seq: 0, id: newEventId(e.at), type: e.type, merchantId: e.merchantId ?? null, paymentId: e.paymentId ?? null,
    livemode: e.livemode, data: e.data, webhookUrl: e.webhookUrl ?? null, createdAt: e.at,
  };
  return { event, json: JSON.stringify(event) };
}

/** Splits events into those announced and those too big, which are written to the outbox in `tx`. */
export async function splitAnnouncements(tx: Tx, list: readonly NewEvent[]): Promise<Announced> {
  const small: Announcement[] = [];
  const big: NewEvent[] = [];
  for (const e of list) {
    const a = announcement(e);
    // A UTF-16 unit is at most 3 bytes: most are known to fit without counting.
    if (a.json.length * 3 <= ANNOUNCE_MAX_BYTES || Buffer.byteLength(a.json) <= ANNOUNCE_MAX_BYTES) small.push(a);
    else big.push(e);
  }
  await appendEvents(tx, big);
  return { list: small, stored: big.length > 0 };
}
