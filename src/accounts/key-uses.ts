// api_keys.last_used_at, written in groups. CONTRACT.md lets it lag a use by up to 5 seconds: a key's
// use is recorded at most every LAST_USED_EVERY_MS, and the uses recorded within GATHER_MS go to
// the database as one statement, so a process serving many keys writes a few times a second rather
// than once per key. A write never moves last_used_at backwards (another process may have written
// a later use).
import { sql } from 'drizzle-orm';
import type { Database } from '../platform/db/index.ts';
import type { Logger } from '../platform/logger.ts';

/** At most this often per key; with GATHER_MS, a use is visible within 4.5 s. */
const LAST_USED_EVERY_MS = 4000;
const GATHER_MS = 500;

export class KeyUseRecorder {
  readonly #db: Database;
  readonly #log: Logger;
  readonly #lastRecorded = new Map<string, number>();
  #waiting = new Map<string, Date>();
  #timer: NodeJS.Timeout | null = null;
  /** The statements sent so far, chained: settles once the last one has. */
  #writing: Promise<void> = Promise.resolve();
  /** Statements sent so far, or queued behind the one under way (each records one or more keys' uses). */
  writes = 0;

  constructor(db: Database, log: Logger) {
    this.#db = db;
    this.#log = log;
  }

  /** A use of the key at `at`; written within GATHER_MS unless one was recorded lately. */
  record(keyId: string, at: Date): void {
    const last = this.#lastRecorded.get(keyId) ?? 0;
    if (at.getTime() - last < LAST_USED_EVERY_MS) return;
    this.#lastRecorded.set(keyId, at.getTime());
    this.#waiting.set(keyId, at);
    if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), GATHER_MS);
      this.#timer.unref();
    }
  }

  /**
   * Writes every use recorded so far (also on shutdown, so none is lost), and returns once they and
   * any write already under way (the gathering timer's) are in the database: a flush that returned
   * while the timer's statement was still running let a shutdown close the database under it.
   */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#waiting.size > 0) {
      const uses = [...this.#waiting].map(([id, at]) => ({ id, at: at.toISOString() }));
      this.#waiting = new Map();
      this.writes++;
      // One after another: #write never rejects, so one failed statement does not stop later ones.
      this.#writing = this.#writing.then(() => this.#write(uses));
    }
    return this.#writing;
  }

  async #write(uses: { id: string; at: string }[]): Promise<void> {
    try {
      await this.#db.orm.execute(sql`update api_keys k set last_used_at = greatest(k.last_used_at, u.at)
        from jsonb_to_recordset(${JSON.stringify(uses)}::jsonb) as u(id text, at timestamptz) where k.id = u.id`);
    } catch (err) {
      this.#log.warn({ err, keys: uses.length }, 'could not record api key use');
    }
  }
}
