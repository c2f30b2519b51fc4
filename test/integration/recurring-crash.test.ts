// kill -9 in the middle of recurring work (src/platform/recurring.ts): the process claimed the tick
// of scheduled payouts (the claim, moving the timer to the next tick, committed) and died after
// paying some merchants. The next tick, run by another process, pays the others, and no one twice.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { count, eq } from 'drizzle-orm';
import { createPgDatabase, pgServerUrl } from '../harness/databases.ts';
import { startTestApp } from '../harness/app.ts';
import { expectLedgerHolds, scheduledMerchantWithBalance } from '../harness/settlement.ts';
import { NODE } from '../harness/node.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { openPostgres } from '../../src/platform/db/index.ts';
import { RecurringWork } from '../../src/platform/recurring.ts';
import { payouts, REQUESTED_BY_SCHEDULER } from '../../src/settlement/index.ts';
import { recurringTimers } from '../harness/recurring.ts';
import { SCHEDULED_PAYOUTS_WORK, scheduleSettlementWork } from '../../src/settlement/workers.ts';

const fixture = path.resolve(import.meta.dirname, '../fixtures/recurring-payouts-stuck.ts');

/** Runs the fixture until it says it is stuck, then SIGKILLs it. */
function stuckThenKilled(url: string, tickAt: string, stuckAt: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [fixture, url, tickAt, String(stuckAt)], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' } });
    let out = '';
    child.stdout.on('data', (d) => { out += d; if (/stuck/.test(out)) child.kill('SIGKILL'); });
    child.stderr.on('data', (d) => { out += d; });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`the fixture exited by itself (${code}): ${out}`))));
  });
}

describe.skipIf(!pgServerUrl())('recurring work killed mid-way [postgres]', () => {
  it('the next tick pays the merchants the killed run did not, and none twice', async () => {
    const created = await createPgDatabase();
    const db = await openPostgres(created.url);
    const clock = new ManualClock('2026-03-02T09:59:30Z');
    const t = await startTestApp(db, { clock });
    try {
      const merchants: string[] = [];
      for (let i = 0; i < 6; i++) merchants.push(await scheduledMerchantWithBalance(t, 20));
      const recurring = new RecurringWork(t.platform.timers, clock, t.platform.log);
      scheduleSettlementWork(t.services.settlement, recurring);
      await recurring.start();
      const paid = async () => new Map((await db.orm.select({ merchantId: payouts.merchantId, n: count() }).from(payouts)
        .where(eq(payouts.requestedBy, REQUESTED_BY_SCHEDULER)).groupBy(payouts.merchantId)).map((r) => [r.merchantId, r.n]));

      await stuckThenKilled(created.url, '2026-03-02T10:00:00Z', 4);
      const before = await paid();
      expect([...before.values()]).toEqual([1, 1, 1]);
      expect(await recurringTimers(db.orm, [SCHEDULED_PAYOUTS_WORK])).toEqual([{ job: SCHEDULED_PAYOUTS_WORK, runAt: new Date('2026-03-02T11:00:00Z') }]);

      clock.set('2026-03-02T11:00:00Z');
      await t.platform.timers.runDue(clock.now());
      await recurring.settled();
      const after = await paid();
      expect(merchants.map((m) => after.get(m))).toEqual([1, 1, 1, 1, 1, 1]);
      await expectLedgerHolds(db);
    } finally {
      await t.close();
      await db.close();
      await created.drop();
    }
  }, 60_000);
});
