// What every room is built from: configuration, database, clock, logger, jobs, outbox.
import type { Config } from '../config.ts';
import type { Clock } from './clock.ts';
import type { Database } from './db/index.ts';
import type { Logger } from './logger.ts';
import type { Jobs } from './jobs.ts';
import type { OutboxDispatcher } from '../events/index.ts';

export interface Platform {
  config: Config;
  db: Database;
  clock: Clock;
  log: Logger;
  /** Null in tests that run due work by hand. */
  jobs: Jobs | null;
  outbox: OutboxDispatcher;
}
