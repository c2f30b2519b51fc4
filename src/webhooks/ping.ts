// The test ping (POST /v1/webhook/test, POST /merchant/webhook/test) as ONE statement: the delivery
// row is inserted only while the account endpoint of the mode still has the URL this process last
// read for it, so the statement itself checks what a transaction around a read and an insert would
// (a URL changed or removed meanwhile inserts nothing, and the URL is read again). No transaction,
// so nothing wakes the outbox: a ping is no event, only a row for the delivery worker.
import { queryText, type Database } from '../platform/db/index.ts';
import { newId } from '../platform/ids.ts';
import { destinationKey, MAX_ATTEMPTS } from './core.ts';
import type { DeliveryRow } from './schema.ts';
import { secretContext } from './secret-box.ts';

// $1 id, $2 merchant, $3 livemode, $4 the URL expected, $5 its host, $6 event id, $7 event type, $8 payload, $9 at.
const INSERT_PING = `
  insert into deliveries (id, merchant_id, livemode, target, url, host, payment_id, event_id, event_type, payload,
    status, attempts, max_attempts, next_attempt_at, history, created_at)
  select $1, w.merchant_id, w.livemode, 'account', w.url, $5, null, $6, $7, $8,
    'pending', 0, ${MAX_ATTEMPTS}, $9::timestamptz, '[]'::jsonb, $9::timestamptz
  from webhooks w where w.merchant_id = $2 and w.livemode = $3 and w.url = $4
  returning id`;
// No `on conflict (event_id, target) do nothing`: the ping's event id is new, so it could never
// apply, and the speculative insertion it asks for cost PostgreSQL about 5% more CPU a ping. (Were
// an id ever to repeat, the unique violation answers `could not queue the test`, as the retries
// that `do nothing` led to did.)
/** Named, so each pooled connection parses and plans it once. */
const PREPARED_NAME = 'webhook_ping_v3';

const READ_URL = 'select url from webhooks where merchant_id = $1 and livemode = $2';

/** URLs remembered at most (one per merchant and mode that pinged). */
const KEPT = 10_000;
/** Reads of the URL before giving up when it keeps changing under us. */
const TRIES = 3;

export interface Ping {
  merchantId: string;
  livemode: boolean;
  eventId: string;
  eventType: string;
  payload: string;
  at: Date;
}

export class PingQueue {
  readonly #db: Database;
  /** The account URL (and its host) last read per merchant and mode. */
  readonly #urls = new Map<string, { url: string; host: string }>();

  constructor(db: Database) {
    this.#db = db;
  }

  /** The queued delivery; null when the mode has no webhook URL. */
  async queue(p: Ping): Promise<DeliveryRow | null> {
    const key = secretContext(p.merchantId, p.livemode);
    for (let i = 0; i < TRIES; i++) {
      let known = this.#urls.get(key);
      if (!known) {
        const [row] = await queryText<{ url: string | null }>(this.#db, null, READ_URL, [p.merchantId, p.livemode]);
        if (!row?.url) return null;
        known = { url: row.url, host: destinationKey(row.url) };
        if (this.#urls.size >= KEPT) this.#urls.clear();
        this.#urls.set(key, known);
      }
      const at = p.at.toISOString();
      const id = newId('dlv', p.at);
      const [inserted] = await queryText<{ id: string }>(this.#db, PREPARED_NAME, INSERT_PING,
        [id, p.merchantId, p.livemode, known.url, known.host, p.eventId, p.eventType, p.payload, at]);
      if (inserted) return queuedPing(id, p, known);
      // The URL changed or was removed since it was read: read it again.
      this.#urls.delete(key);
    }
    throw new Error('the webhook URL kept changing while a ping was queued');
  }
}

/**
 * The row as inserted, built from the values the statement was given rather than read back: the
 * URL is the one the statement matched, both times are `at`. (Returning the whole row cost, measured
 * sequentially, about 30 to 60 µs more CPU in this process and 10 to 30 µs in PostgreSQL a ping.)
 */
function queuedPing(id: string, p: Ping, known: { url: string; host: string }): DeliveryRow {
  return {
    id, merchantId: p.merchantId, livemode: p.livemode, target: 'account', url: known.url, host: known.host, paymentId: null,
    eventId: p.eventId, eventType: p.eventType, payload: p.payload, status: 'pending', attempts: 0, maxAttempts: MAX_ATTEMPTS,
    nextAttemptAt: p.at, claim: null, leaseUntil: null, lastStatusCode: null, lastError: null, lastAttemptAt: null,
    deliveredAt: null, resolvedAt: null, resolutionNote: null, history: [], createdAt: p.at,
  };
}
