// A failed timer is retried a few seconds on, but only the row that failed: one another transaction
// moved later while the handler ran (a coin chosen moves the payment's deadline 15 minutes on) keeps
// its new time. The retry once pulled it forward to its own, and a payment deadline run before
// expires_at did nothing. PostgreSQL only: the move comes from a second connection. After the
// rollback the move and the retry's update race for the row; the move, queued first, wins about two
// times in three (the retry then overwrote it without the guard), and with the guard either order
// passes: five rounds, so the test fails without the guard all but about once in 250 runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { openTestDatabase, pgServerUrl } from '../harness/databases.ts';
import { Timers } from '../../src/platform/timers.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { queryRows, type Database } from '../../src/platform/db/index.ts';
import { uid } from '../harness/accounts.ts';
import { untilLockWaiters } from '../harness/lock-waits.ts';

const skip = !pgServerUrl();
if (skip) console.log('timer retry against a concurrent move skipped: no PostgreSQL server');

describe.skipIf(skip)('a failed timer moved later meanwhile [postgres]', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Database;
  const clock = new ManualClock(new Date('2026-03-12T10:00:00Z'));
  beforeAll(async () => {
    opened = await openTestDatabase('postgres');
    db = opened.db;
  });
  afterAll(async () => { await opened?.dispose(); });


  it('keeps the later time another transaction gave it, not the retry\'s', async () => {
    for (let round = 0; round < 5; round++) await movedWhileFailing();
  });

  async function movedWhileFailing(): Promise<void> {
    const kind = `k-${uid()}`;
    const key = uid();
    const now = clock.now();
    const later = new Date(now.getTime() + 15 * 60_000);
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => { entered = r; });
    let fail!: () => void;
    const failNow = new Promise<void>((r) => { fail = r; });
    const timers = new Timers(db, clock, createLogger('silent'));
    timers.handle(kind, async () => {
      entered();
      await failNow;
      throw new Error('boom');
    });
    await timers.schedule(db.orm, { kind, key, runAt: now });
    const run = timers.runDue(now);
    await inHandler;
    // another transaction moves the timer while the handler holds it: it waits, and goes on once the
    // handler's transaction has rolled back
    const other = new pg.Client({ connectionString: opened.url! });
    await other.connect();
    try {
      const moved = other.query('update timers set run_at = $1 where kind = $2 and key = $3', [later.toISOString(), kind, key]);
      await untilLockWaiters(db);
      fail();
      expect(await run).toBe(0);
      expect((await moved).rowCount).toBe(1);
    } finally {
      await other.end();
    }
    const [row] = await queryRows<{ run_at: string; attempts: number }>(db.orm, sql`select run_at, attempts from timers where kind = ${kind} and key = ${key}`);
    expect(new Date(row.run_at).toISOString()).toBe(later.toISOString());
  }
});
