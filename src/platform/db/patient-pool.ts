// A pg Pool that waits when the server refuses a new connection for being full, instead of failing
// the query that needed it. PostgreSQL answers 53300 (`sorry, too many clients already`, or too
// many connections for the role or database) while other processes hold every slot, and 57P03
// while it cannot take connections for a moment. Neither says anything about the query: nothing
// was sent yet, so asking again is safe. Without this, a busy shared server turned payment
// creations into 500s whenever the pool had to open a connection (the pool closes idle ones
// after POOL_IDLE_MS, connect.ts, so a pause in traffic is enough for it to need new ones when the
// traffic comes back).
import pg from 'pg';
import { isRefusedConnection } from './refused-connection.ts';

/** First wait before asking again; it doubles up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 25;
const RETRY_MAX_MS = 1000;
/**
 * How long a caller waits for a connection the server keeps refusing before it gets the error:
 * the same bound as a request's own arrival (app.ts requestTimeout), so a server that stays full
 * is reported rather than waited on forever.
 */
export const CONNECT_PATIENCE_MS = 30_000;


type ConnectCallback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

export class PatientPool extends pg.Pool {
  /** Connections the server refused so far (each was asked for again). */
  refusals = 0;
  readonly #patienceMs: number;

  /** `patienceMs`: how long a caller waits for a connection the server keeps refusing (default CONNECT_PATIENCE_MS). */
  constructor(config: pg.PoolConfig & { patienceMs?: number } = {}) {
    const { patienceMs, ...poolConfig } = config;
    super(poolConfig);
    this.#patienceMs = patienceMs ?? CONNECT_PATIENCE_MS;
  }

  // pg's Pool.query and drizzle's transactions both come through connect(): with a callback, or
  // for a promise without one.
  connect(): Promise<pg.PoolClient>;
  connect(cb: ConnectCallback): void;
  connect(cb?: ConnectCallback): Promise<pg.PoolClient> | void {
    if (cb) return this.#connect(cb, Date.now() + this.#patienceMs, RETRY_FIRST_MS);
    return new Promise((resolve, reject) => {
      this.#connect((err, client) => (err ? reject(err) : resolve(client!)), Date.now() + this.#patienceMs, RETRY_FIRST_MS);
    });
  }

  #connect(cb: ConnectCallback, giveUpAt: number, waitMs: number): void {
    super.connect(((err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => {
      if (err && isRefusedConnection(err) && !this.ending && Date.now() + waitMs < giveUpAt) {
        this.refusals++;
        setTimeout(() => this.#connect(cb, giveUpAt, Math.min(waitMs * 2, RETRY_MAX_MS)), waitMs);
        return;
      }
      cb(err, client, done);
    }) as never);
  }
}
