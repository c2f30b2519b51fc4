// Scheduled work through pg-boss, on PostgreSQL directly and on PGlite through its `db` option.
// Handlers are thin triggers: the work itself lives in services that take the clock, so tests
// run it directly without waiting for the queue.
import { PgBoss } from 'pg-boss';
import type { Database } from './db/index.ts';
import type { Logger } from './logger.ts';

type Handler = (data: Record<string, unknown>) => Promise<void>;

/** pg-boss's `db` adapter for PGlite: parameterised queries go through query(), scripts through exec(). */
function pgliteAdapter(db: Database) {
  const client = db.pglite!;
  return {
    async executeSql(text: string, values?: unknown[]) {
      if (values && values.length > 0) return client.query(text, values as unknown[]);
      const results = await client.exec(text);
      return results[results.length - 1] ?? { rows: [] };
    },
  };
}

export class Jobs {
  readonly boss: PgBoss;
  readonly #log: Logger;
  readonly #queues = new Set<string>();

  private constructor(boss: PgBoss, log: Logger) {
    this.boss = boss;
    this.#log = log;
  }

  static async start(db: Database, log: Logger): Promise<Jobs> {
    const boss = db.kind === 'postgres'
      ? new PgBoss({ connectionString: db.url!, max: 3 })
      : new PgBoss({ db: pgliteAdapter(db) as never });
    boss.on('error', (err: unknown) => log.error({ err }, 'job queue error'));
    await boss.start();
    return new Jobs(boss, log);
  }

  async #queue(name: string): Promise<void> {
    if (this.#queues.has(name)) return;
    await this.boss.createQueue(name);
    this.#queues.add(name);
  }

  /** Runs handler for each job of the queue; a throwing handler makes pg-boss retry the job. */
  async work(queue: string, handler: Handler, opts: { pollingIntervalSeconds?: number } = {}): Promise<void> {
    await this.#queue(queue);
    await this.boss.work(queue, { pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 0.5 }, async (jobs) => {
      for (const job of jobs) {
        try {
          await handler((job.data ?? {}) as Record<string, unknown>);
        } catch (err) {
          this.#log.error({ err, queue }, 'job failed');
          throw err;
        }
      }
    });
  }

  async send(queue: string, data: Record<string, unknown>, opts: { startAfter?: Date; singletonKey?: string } = {}): Promise<void> {
    await this.#queue(queue);
    await this.boss.send(queue, data, { startAfter: opts.startAfter, singletonKey: opts.singletonKey, retryLimit: 5, retryDelay: 2 });
  }

  /** A recurring job by cron expression (UTC). */
  async every(queue: string, cron: string, data: Record<string, unknown> = {}): Promise<void> {
    await this.#queue(queue);
    await this.boss.schedule(queue, cron, data, { tz: 'UTC' });
  }

  async stop(): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: 5000 });
  }
}
