// The test ping (POST /v1/webhook/test, POST /merchant/webhook/test) as ONE statement: the delivery
// row is inserted only while the account endpoint of the mode still has the URL this process last
// read for it, so the statement itself checks what a transaction around a read and an insert would
// (a URL changed or removed meanwhile inserts nothing, and the URL is read again). No transaction,
// so nothing wakes the outbox: a ping is no event, only a row for the delivery worker. The row is
// not read back: every column of it is a parameter of the statement (measured: `returning *` cost
// PostgreSQL about a tenth of the statement, and this process the parsing of 24 columns).
// When the worker of this process has a free slot for the host, the row is inserted already claimed
// by it (`sending`, a claim and a lease, as a claim would leave it) and the statement also returns
// the endpoint as it read it: the attempt then starts at once, with no claim statement and no read
// of the endpoint. A process killed before recording that attempt leaves the row leased: it is taken
// again when the lease runs out, like any claimed row.
import type { Database } from '../platform/db/index.ts';
import { newId } from '../platform/ids.ts';
import { destinationKey, MAX_ATTEMPTS } from './core.ts';
import type { DeliveryRow, WebhookRow } from './schema.ts';
import { secretContext } from './secret-box.ts';

// $1 id, $2 merchant, $3 livemode, $4 the URL expected, $5 its host, $6 event id, $7 event type, $8 payload, $9 at,
// $10 the claim (null: queued `pending` for the worker), $11 its lease.
const INSERT_PING = `
  with w as (select * from webhooks where merchant_id = $2 and livemode = $3 and url = $4),
  ins as (
    insert into deliveries (id, merchant_id, livemode, target, url, host, payment_id, event_id, event_type, payload,
      status, attempts, max_attempts, next_attempt_at, claim, lease_until, history, created_at)
    select $1, w.merchant_id, w.livemode, 'account', w.url, $5, null, $6, $7, $8,
      case when $10::text is null then 'pending' else 'sending' end, 0, ${MAX_ATTEMPTS}, $9::timestamptz,
      $10::text, $11::timestamptz, '[]'::jsonb, $9::timestamptz
    from w
    on conflict (event_id, target) do nothing
    returning id)
  select w.secret_enc, w.created_at, w.updated_at from ins cross join w`;
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

/** A slot of this process's worker for the ping's attempt, and the claim the row is inserted under. */
export interface PingLease {
  claim: string;
  leaseUntil: Date;
  /** Gives the slot back (the row was not inserted under this claim). */
  release(): void;
}

export interface QueuedPing {
  row: DeliveryRow;
  /** Set when the row was inserted claimed under it: this process makes the attempt. */
  lease: PingLease | null;
  /** The endpoint as the statement read it (its URL is the row's). */
  endpoint: WebhookRow;
}

export class PingQueue {
  readonly #db: Database;
  /** The account URL (and its host) last read per merchant and mode. */
  readonly #urls = new Map<string, { url: string; host: string }>();

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * The queued delivery; null when the mode has no webhook URL. `lease` is asked for a slot once the
   * host is known: with one, the row is inserted claimed under it.
   */
  async queue(p: Ping, lease: (host: string) => PingLease | null = () => null): Promise<QueuedPing | null> {
    const key = secretContext(p.merchantId, p.livemode);
    for (let i = 0; i < TRIES; i++) {
      let known = this.#urls.get(key);
      if (!known) {
        const [row] = await this.#query<{ url: string | null }>(null, READ_URL, [p.merchantId, p.livemode]);
        if (!row?.url) return null;
        known = { url: row.url, host: destinationKey(row.url) };
        if (this.#urls.size >= KEPT) this.#urls.clear();
        this.#urls.set(key, known);
      }
      const slot = lease(known.host);
      const row = newPing(p, known, slot);
      let inserted: EndpointColumns | undefined;
      try {
        [inserted] = await this.#query<EndpointColumns>(PREPARED_NAME, INSERT_PING,
          [row.id, p.merchantId, p.livemode, known.url, known.host, p.eventId, p.eventType, p.payload, p.at.toISOString(),
            slot?.claim ?? null, slot?.leaseUntil.toISOString() ?? null]);
      } catch (err) {
        slot?.release();
        throw err;
      }
      if (inserted) return { row, lease: slot, endpoint: endpointOf(p, known.url, inserted) };
      slot?.release();
      // The URL changed or was removed since it was read: read it again.
      this.#urls.delete(key);
    }
    throw new Error('the webhook URL kept changing while a ping was queued');
  }

  async #query<T>(name: string | null, text: string, values: unknown[]): Promise<T[]> {
    const { pool, pglite } = this.#db;
    if (pool) return (await pool.query<T & object>(name ? { name, text, values } : { text, values })).rows;
    return (await pglite!.query<T>(text, values)).rows;
  }
}

/** What the statement returns: the endpoint's columns this process does not know already. */
interface EndpointColumns { secret_enc: string; created_at: Date | string; updated_at: Date | string }

const asDate = (v: Date | string): Date => (v instanceof Date ? v : new Date(v));

function endpointOf(p: Ping, url: string, r: EndpointColumns): WebhookRow {
  return { merchantId: p.merchantId, livemode: p.livemode, url, secretEnc: r.secret_enc, createdAt: asDate(r.created_at), updatedAt: asDate(r.updated_at) };
}

/**
 * The row the statement inserts, as this process knows it already (its columns are the statement's
 * parameters; the URL is the one the statement matched): nothing of it needs to travel back.
 */
function newPing(p: Ping, known: { url: string; host: string }, slot: PingLease | null): DeliveryRow {
  return {
    id: newId('dlv', p.at), merchantId: p.merchantId, livemode: p.livemode, target: 'account', url: known.url, host: known.host,
    paymentId: null, eventId: p.eventId, eventType: p.eventType, payload: p.payload, status: slot ? 'sending' : 'pending',
    attempts: 0, maxAttempts: MAX_ATTEMPTS, nextAttemptAt: new Date(p.at), claim: slot?.claim ?? null, leaseUntil: slot?.leaseUntil ?? null,
    lastStatusCode: null, lastError: null, lastAttemptAt: null, deliveredAt: null, resolvedAt: null, resolutionNote: null,
    history: [], createdAt: new Date(p.at),
  };
}
