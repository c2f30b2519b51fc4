// Opens the database and applies migrations: the platform every room uses.
import type { Config } from '../config.ts';
import { OutboxDispatcher } from '../events/index.ts';
import { systemClock, type Clock } from './clock.ts';
import { migrate, openDatabase, type Database } from './db/index.ts';
import { Timers } from './timers.ts';
import type { Logger } from './logger.ts';
import type { Platform } from './context.ts';

export interface BootOptions {
  /** An already open database (tests); otherwise the configured one is opened. */
  db?: Database;
  clock?: Clock;
}

export async function bootPlatform(config: Config, log: Logger, opts: BootOptions = {}): Promise<Platform> {
  const db = opts.db ?? await openDatabase(config);
  const applied = await migrate(db);
  if (applied.length > 0) log.info({ applied }, 'migrations applied');
  const clock = opts.clock ?? systemClock;
  const timers = new Timers(db, clock, log);
  const outbox = new OutboxDispatcher(db, log);
  return { config, db, clock, log, timers, outbox };
}
