// Race tests on PostgreSQL line statements up behind a lock held by another connection, then let
// them go in order: this waits until that many of them are queued.
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
