// The recurring work's timers as the table holds them (src/platform/recurring.ts), by job, for tests.
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../src/platform/db/index.ts';
import { RECURRING_TIMER_KEY } from '../../src/platform/recurring.ts';

/** Each job's next tick, in the order of the jobs' names; only `jobs` when given. */
export async function recurringTimers(db: Executor, jobs?: string[]): Promise<{ job: string; runAt: Date }[]> {
  const only = jobs ? sql`and kind in (${sql.join(jobs.map((j) => sql`${j}`), sql`, `)})` : sql``;
  const rows = await queryRows<{ kind: string; run_at: string | Date }>(db, sql`select kind, run_at from timers where key = ${RECURRING_TIMER_KEY} ${only} order by kind`);
  return rows.map((r) => ({ job: r.kind, runAt: new Date(r.run_at) }));
}
