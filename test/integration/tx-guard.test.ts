// The tests' guard against a statement sent past an open transaction from inside it (harness/tx-guard.ts).
import { expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { PAST_THE_TRANSACTION } from '../harness/tx-guard.ts';
import { queryRows } from '../../src/platform/db/index.ts';

describeEachDb('transaction guard', (h) => {
  it.skipIf(h.kind !== 'pglite')('fails a statement sent past the open transaction from inside it, at once', async () => {
    const db = h.db();
    // drizzle wraps a failed query's error (Failed query: …) with it as the cause
    const reason = (p: Promise<unknown>) => p.then(() => 'committed', (e: Error & { cause?: Error }) => e.cause?.message ?? e.message);
    expect(await reason(db.transaction(async () => { await db.orm.execute(sql`select 1`); }))).toBe(PAST_THE_TRANSACTION);
    expect(await reason(db.transaction(async () => { await db.transaction(async () => undefined); }))).toBe(PAST_THE_TRANSACTION);
  });

  it('lets the transaction\'s own statements, work after its commit and other requests through', async () => {
    const db = h.db();
    let committed!: () => void;
    const afterCommit = new Promise<void>((resolve) => { committed = resolve; });
    let later: Promise<unknown> = Promise.resolve();
    const [concurrent, own] = await Promise.all([
      queryRows<{ n: number }>(db.orm, sql`select 2 as n`),
      // started inside the transaction (its async context), run once it has committed
      db.transaction(async (tx) => {
        later = afterCommit.then(() => queryRows(db.orm, sql`select 3 as n`));
        return queryRows<{ n: number }>(tx, sql`select 1 as n`);
      }).finally(() => committed()),
    ]);
    expect([concurrent[0].n, own[0].n]).toEqual([2, 1]);
    expect(await later).toEqual([{ n: 3 }]);
  });
});
