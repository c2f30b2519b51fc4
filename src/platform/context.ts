// What every room is built from: configuration, database, clock, logger, durable timers, outbox.
import type { Config } from '../config.ts';
import type { Clock } from './clock.ts';
import type { Database } from './db/index.ts';
import type { Logger } from './logger.ts';
import type { Timers } from './timers.ts';
import type { OutboxDispatcher } from '../events/index.ts';

export interface Platform {
  config: Config;
  db: Database;
  clock: Clock;
  log: Logger;
  /** Due work of every room (deadlines, simulation steps, recurring work); started with the workers. */
  timers: Timers;
  outbox: OutboxDispatcher;
}
