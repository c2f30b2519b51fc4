// The test ping (POST /v1/webhook/test, POST /merchant/webhook/test) as one insert: the delivery row
// goes in only while the account endpoint of the mode still has the URL and the secret this process
// last read for it, so the statement itself checks what a transaction around a read and an insert
// would (a URL changed or removed, or a secret rolled, meanwhile inserts nothing, and the endpoint is
// read again). No transaction, so nothing wakes the outbox: a ping is no event, only a row for the
// delivery worker. The pings that arrive together share that one statement and its commit (group
// write, platform/grouped-statements.ts): alone, each ping's commit cost PostgreSQL more than the row.
//
// When this process's delivery worker has room for the URL's host (a slot, or a place in the
// host's backlog), the row goes in already claimed by it (a claim token and a lease, the status still
// `pending`) and its first attempt starts as soon as the insert is answered, with the endpoint just
// matched: no claim statement, no row version for the claim, no read of the endpoint (issue 17).
// Should the process die first, the lease runs out and any worker takes the row as any due one.
import { and, eq } from 'drizzle-orm';
import { queryText, type Database } from '../platform/db/index.ts';
import { newId } from '../platform/ids.ts';
import { GroupedStatements, REQUEST_GROUP_SEND_AT, requestGroupsInFlight } from '../platform/grouped-statements.ts';
import { destinationKey, MAX_ATTEMPTS } from './core.ts';
import { webhooks, type DeliveryRow } from './schema.ts';
import { secretContext } from './secret-box.ts';
import type { Webhook, WebhookEndpoints } from './endpoints.ts';

// The pings that arrive together go in one statement (platform/grouped-statements.ts), each row only
// while its endpoint still has the URL and sealed secret it was read with (`$1`: one JSON object per
// ping). The claim and lease are null when the worker had no room for the ping.
const INSERT_PINGS = `
  insert into deliveries (id, merchant_id, livemode, target, url, host, payment_id, event_id, event_type, payload,
    status, attempts, max_attempts, next_attempt_at, claim, lease_until, history, created_at)
  select v.id, w.merchant_id, w.livemode, 'account', w.url, v.host, null, v.event_id, v.event_type, v.payload,
    'pending', 0, ${MAX_ATTEMPTS}, v.at, v.claim, v.lease_until, '[]'::jsonb, v.at
  from jsonb_to_recordset($1::jsonb) as v(id text, merchant_id text, livemode boolean, url text, host text, event_id text,
    event_type text, payload text, at timestamptz, secret_enc text, claim text, lease_until timestamptz)
  join webhooks w on w.merchant_id = v.merchant_id and w.livemode = v.livemode and w.url = v.url and w.secret_enc = v.secret_enc
  returning id`;
// No `on conflict (event_id, target) do nothing`: a ping's event id is new, so it could never
// apply, and the speculative insertion it asks for cost PostgreSQL about 5% more CPU a ping. (Were
// an id ever to repeat, the group is run again ping by ping and that one answers `could not queue
// the test`.)
/** Named, so each pooled connection parses and plans it once. */
const PREPARED_NAME = 'webhook_pings_v1';

/** One ping's row as the group statement reads it. */
interface PingRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  url: string;
  host: string;
  event_id: string;
  event_type: string;
  payload: string;
  at: string;
  secret_enc: string;
  claim: string | null;
  lease_until: string | null;
}

/** Endpoints remembered at most (one per merchant and mode that pinged). */
const KEPT = 10_000;
/** Reads of the endpoint before giving up when it keeps changing under us. */
const TRIES = 3;

export interface Ping {
  merchantId: string;
  livemode: boolean;
  eventId: string;
  eventType: string;
  payload: string;
  at: Date;
}

/** A slot of the delivery worker taken before the insert, so that the row goes in already claimed. */
export interface Reservation {
  readonly claim: string;
  readonly leaseUntil: Date;
  /** Starts the first attempt of the row inserted under this claim, to the endpoint it matched. */
  start(row: DeliveryRow, webhook: Webhook): void;
  /** Gives the slot back: nothing was inserted under the claim. */
  cancel(): void;
}

/** The endpoint last read for a merchant and mode, with what the insert matches it by. */
interface Known {
  webhook: Webhook & { url: string };
  host: string;
  secretEnc: string;
}

export class PingQueue {
  readonly #db: Database;
  readonly #endpoints: WebhookEndpoints;
  /** The account endpoint last read per merchant and mode. */
  readonly #known = new Map<string, Known>();
  readonly #groups: GroupedStatements<PingRow, boolean>;

  constructor(db: Database, endpoints: WebhookEndpoints) {
    this.#db = db;
    this.#endpoints = endpoints;
    this.#groups = new GroupedStatements(async (items) => {
      const inserted = new Set((await queryText<{ id: string }>(db, PREPARED_NAME, INSERT_PINGS, [JSON.stringify(items)])).map((r) => r.id));
      return items.map((i) => inserted.has(i.id));
    }, {
      // PGlite runs one statement at a time: a second in flight would only wait.
      maxInFlight: db.pool ? requestGroupsInFlight(db.pool.options.max ?? 10) : 1,
      sendAt: REQUEST_GROUP_SEND_AT,
    });
  }

  /**
   * The queued delivery; null when the mode has no webhook URL. `reserve` asks this process's worker
   * for a slot for the URL's host (null: none free, or no worker running here).
   */
  async queue(p: Ping, reserve?: (host: string) => Reservation | null): Promise<DeliveryRow | null> {
    const key = secretContext(p.merchantId, p.livemode);
    for (let i = 0; i < TRIES; i++) {
      const known = this.#known.get(key) ?? await this.#read(p.merchantId, p.livemode, key);
      if (!known) return null;
      const at = p.at.toISOString();
      const id = newId('dlv', p.at);
      const slot = reserve?.(known.host) ?? null;
      let inserted = false;
      try {
        inserted = await this.#groups.write({
          id, merchant_id: p.merchantId, livemode: p.livemode, url: known.webhook.url, host: known.host, event_id: p.eventId,
          event_type: p.eventType, payload: p.payload, at, secret_enc: known.secretEnc, claim: slot?.claim ?? null,
          lease_until: slot?.leaseUntil.toISOString() ?? null,
        });
      } finally {
        if (slot && !inserted) slot.cancel();
      }
      if (inserted) {
        const row = queuedPing(id, p, known, slot);
        slot?.start(row, known.webhook);
        return row;
      }
      // The URL changed or was removed, or the secret rolled, since it was read: read it again.
      this.#known.delete(key);
    }
    throw new Error('the webhook URL kept changing while a ping was queued');
  }

  // Once per merchant and mode, then on a change: the ping's hot path reads the endpoint from #known.
  async #read(merchantId: string, livemode: boolean, key: string): Promise<Known | null> {
    const [row] = await this.#db.orm.select().from(webhooks).where(and(eq(webhooks.merchantId, merchantId), eq(webhooks.livemode, livemode)));
    if (!row?.url) return null;
    const known: Known = { webhook: { ...this.#endpoints.opened(row), url: row.url }, host: destinationKey(row.url), secretEnc: row.secretEnc };
    if (this.#known.size >= KEPT) this.#known.clear();
    this.#known.set(key, known);
    return known;
  }
}

/**
 * The row as inserted, built from the values the statement was given rather than read back: the
 * URL is the one the statement matched, both times are `at`. (Returning the whole row cost, measured
 * sequentially, about 30 to 60 µs more CPU in this process and 10 to 30 µs in PostgreSQL a ping.)
 */
function queuedPing(id: string, p: Ping, known: Known, slot: Reservation | null): DeliveryRow {
  return {
    id, merchantId: p.merchantId, livemode: p.livemode, target: 'account', url: known.webhook.url, host: known.host, paymentId: null,
    eventId: p.eventId, eventType: p.eventType, payload: p.payload, status: 'pending', attempts: 0, maxAttempts: MAX_ATTEMPTS,
    nextAttemptAt: p.at, claim: slot?.claim ?? null, leaseUntil: slot?.leaseUntil ?? null, lastStatusCode: null, lastError: null, lastAttemptAt: null,
    deliveredAt: null, resolvedAt: null, resolutionNote: null, history: [], createdAt: p.at,
  };
}
