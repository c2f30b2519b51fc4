// The idempotency_keys table: claim a key for a request, record its answer, release it. Every step
// is one statement on the shared database, so processes (and restarts) agree on who runs a key.
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../platform/db/index.ts';
import type { Clock } from '../platform/clock.ts';
import { SecretBox } from '../webhooks/index.ts';

/** Stored answers are replayed for 24 hours (CONTRACT "Developer platform"). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long a running first request holds its key. Requests finish in well under a second; a row
 * still running after this belongs to a process that died mid-request, and a repeat may run again.
 */
export const IDEMPOTENCY_LEASE_MS = 60 * 1000;

export interface KeyScope {
  merchantId: string;
  livemode: boolean;
  key: string;
}

export interface StoredAnswer {
  statusCode: number;
  contentType: string | null;
  body: string;
}

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'mismatch' }
  | { kind: 'running' }
  | { kind: 'done'; answer: StoredAnswer };

interface Row {
  fingerprint: string;
  state: string;
  status_code: number | null;
  content_type: string | null;
  sealed_body: string | null;
}

const SWEEP_EVERY_MS = 10 * 60 * 1000;

export class IdempotencyStore {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #box: SecretBox;
  #lastSweep = 0;

  constructor(db: Database, clock: Clock, box: SecretBox) {
    this.#db = db;
    this.#clock = clock;
    this.#box = box;
  }

  /** Claims the key for a request with `fingerprint`, or says why not. */
  async claim(scope: KeyScope, fingerprint: string): Promise<Claim> {
    this.#sweepNowAndThen();
    // A deleted row (a released key) between the two statements is retried once or twice.
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.#clock.now();
      const lease = new Date(now.getTime() + IDEMPOTENCY_LEASE_MS);
      const expires = new Date(now.getTime() + IDEMPOTENCY_TTL_MS);
      // Insert, or take over a row that expired or whose first request died holding it.
      const claimed = await queryRows<{ claimed: boolean }>(this.#db.orm, sql`
        insert into idempotency_keys (merchant_id, livemode, key, fingerprint, state, locked_until, created_at, expires_at)
        values (${scope.merchantId}, ${scope.livemode}, ${scope.key}, ${fingerprint}, 'running', ${lease}, ${now}, ${expires})
        on conflict (merchant_id, livemode, key) do update set
          fingerprint = excluded.fingerprint, state = 'running', locked_until = excluded.locked_until,
          status_code = null, content_type = null, sealed_body = null,
          created_at = excluded.created_at, expires_at = excluded.expires_at
        where idempotency_keys.expires_at <= ${now}
           or (idempotency_keys.state = 'running' and idempotency_keys.locked_until <= ${now}
               and idempotency_keys.fingerprint = excluded.fingerprint)
        returning true as claimed`);
      if (claimed.length > 0) return { kind: 'claimed' };
      const [row] = await queryRows<Row>(this.#db.orm, sql`
        select fingerprint, state, status_code, content_type, sealed_body from idempotency_keys
        where merchant_id = ${scope.merchantId} and livemode = ${scope.livemode} and key = ${scope.key}`);
      if (!row) continue;
      if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (row.state !== 'done') return { kind: 'running' };
      return {
        kind: 'done',
        answer: { statusCode: row.status_code!, contentType: row.content_type, body: this.#box.open(row.sealed_body!, contextOf(scope)) },
      };
    }
    return { kind: 'running' };
  }

  /** Records the answer of the claimed key's first request; replays read it from now on. */
  async complete(scope: KeyScope, answer: StoredAnswer): Promise<void> {
    const sealed = this.#box.seal(answer.body, contextOf(scope));
    await this.#db.orm.execute(sql`
      update idempotency_keys set state = 'done', locked_until = null, status_code = ${answer.statusCode},
        content_type = ${answer.contentType}, sealed_body = ${sealed}
      where merchant_id = ${scope.merchantId} and livemode = ${scope.livemode} and key = ${scope.key} and state = 'running'`);
  }

  /** Gives the key back (the first request failed on our side): the next repeat runs again. */
  async release(scope: KeyScope): Promise<void> {
    await this.#db.orm.execute(sql`
      delete from idempotency_keys
      where merchant_id = ${scope.merchantId} and livemode = ${scope.livemode} and key = ${scope.key} and state = 'running'`);
  }

  /** Expired rows are dead weight; any process removes them now and then, never waiting for it. */
  #sweepNowAndThen(): void {
    const now = this.#clock.now();
    if (now.getTime() - this.#lastSweep < SWEEP_EVERY_MS) return;
    this.#lastSweep = now.getTime();
    this.#db.orm.execute(sql`delete from idempotency_keys where expires_at <= ${now}`).catch(() => {});
  }
}

/** A sealed answer opens only on the row it was written for. */
const contextOf = (scope: KeyScope) => `${scope.merchantId}:${scope.livemode ? 'live' : 'test'}:${scope.key}`;

/** The store of a running service: stored answers sealed under a key of their own, derived from AUTH_SECRET. */
export function createIdempotencyStore(db: Database, clock: Clock, authSecret: string): IdempotencyStore {
  return new IdempotencyStore(db, clock, new SecretBox(authSecret, { salt: 'gateway idempotent answers', info: 'stored answer encryption v1' }));
}
