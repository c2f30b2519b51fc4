// One process watches a chain at a time: it holds a PostgreSQL session advisory lock per chain on a
// connection of its own (not one of the pool's, which come and go). When that process dies, its
// connection closes, PostgreSQL releases the lock, and the next process that asks (every poll)
// takes the chain over. Losing the connection loses every lock: the watcher stops at once, and
// the cursor's compare-and-set keeps an overlap harmless. PGlite is one process: it always holds.
import pg from 'pg';
import type { Chain } from '../../config.ts';
import type { Logger } from '../../platform/logger.ts';

const lockName = (chain: Chain): string => `chain-watch:${chain}`;

export class ChainLocks {
  readonly #url: string | null;
  readonly #log: Logger;
  #client: pg.Client | null = null;
  #connecting: Promise<pg.Client> | null = null;
  readonly #held = new Set<Chain>();
  #closed = false;

  /** `url`: the PostgreSQL server; null on PGlite (a single process). */
  constructor(url: string | null, log: Logger) {
    this.#url = url;
    this.#log = log;
  }

  /** Whether this process watches `chain` now: true when it held the lock and still does, or took it just now. */
  async hold(chain: Chain): Promise<boolean> {
    if (this.#url === null) return !this.#closed;
    if (this.#closed) return false;
    try {
      const client = await this.#connect();
      if (this.#held.has(chain)) {
        // Still connected means still locked (a session lock lives as long as its connection).
        await client.query('select 1');
        return true;
      }
      const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock(hashtextextended($1, 0)) as ok', [lockName(chain)]);
      if (rows[0]?.ok) {
        this.#held.add(chain);
        this.#log.info({ chain }, 'chain watch: this process watches the chain');
      }
      return rows[0]?.ok === true;
    } catch (err) {
      this.#lost((err as Error).message);
      return false;
    }
  }

  /** Lets the other processes take the chains (the connection closes). */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client ?? (this.#connecting ? await this.#connecting.catch(() => null) : null);
    this.#client = null;
    this.#held.clear();
    await client?.end().catch(() => {});
  }

  #connect(): Promise<pg.Client> {
    if (this.#client) return Promise.resolve(this.#client);
    this.#connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.#url!, application_name: 'gateway chain watch' });
      client.on('error', (err) => this.#lost(err.message));
      client.on('end', () => this.#lost('connection closed'));
      try {
        await client.connect();
      } catch (err) {
        await client.end().catch(() => {});
        throw err;
      } finally {
        this.#connecting = null;
      }
      if (this.#closed) {
        await client.end().catch(() => {});
        throw new Error('closed');
      }
      this.#client = client;
      return client;
    })();
    return this.#connecting;
  }

  #lost(why: string): void {
    const client = this.#client;
    this.#client = null;
    if (this.#held.size > 0 && !this.#closed) this.#log.warn({ chains: [...this.#held], why }, 'chain watch: lock connection lost; the chains are free for another process');
    this.#held.clear();
    client?.end().catch(() => {});
  }
}
