// Race tests on PostgreSQL line statements up behind a lock held by another connection, then let
// them go in order: this waits until that many of them are queued.
import pg from 'pg';
import type { Database } from '../../src/platform/db/index.ts';

/** Waits until `n` statements of `db`'s database wait for a lock (PostgreSQL; 10 s at most). */
export async function untilLockWaiters(db: Database, n = 1): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const { rows } = await db.pool!.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
    if (rows[0].n >= n) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`fewer than ${n} statements waiting for a lock`);
}

/**
 * Waits until `n` statements of `db`'s database wait for a lock, or `done()` (the other side finished
 * without waiting: the lock was not contended), 10 s at most. PostgreSQL.
 */
export async function untilLockWaiterOr(db: Database, done: () => boolean, n = 1): Promise<void> {
  for (let i = 0; i < 400 && !done(); i++) {
    const { rows } = await db.pool!.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
    if (rows[0].n >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * `request` made while another connection holds `statement`'s change of a row uncommitted; that
 * change commits once a statement of `request` waits for the row: a change committed meanwhile (a
 * second dashboard tab). PostgreSQL only (`url` is its database).
 */
export async function committedMeanwhile<T>(db: Database, url: string, statement: string, params: unknown[], request: () => Promise<T>): Promise<T> {
  const locker = new pg.Client({ connectionString: url });
  await locker.connect();
  try {
    await locker.query('begin');
    await locker.query(statement, params);
    const pending = request();
    await untilLockWaiters(db);
    await locker.query('commit');
    return await pending;
  } finally {
    await locker.end();
  }
}
