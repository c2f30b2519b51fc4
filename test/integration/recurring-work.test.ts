// Recurring work on durable timers (src/platform/recurring.ts): one run a tick however many
// processes share the database, the timer moved to the next tick by the run's claim, ticks missed
// while nothing ran collapsed into one run, a failed run tried again well before the next tick, a
// tick that finds the last run still going skipped, and a restart keeping the timer's time.
// The settlement room's two jobs are checked at the end: the hourly one makes a due scheduled payout.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, uid } from '../harness/accounts.ts';
import { ADDR, addMember, input, payment, scheduledMerchantWithBalance } from '../harness/settlement.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger, type Logger } from '../../src/platform/logger.ts';
import { Timers } from '../../src/platform/timers.ts';
import { HOUR_MS, MINUTE_MS, RecurringWork } from '../../src/platform/recurring.ts';
import { balances, payouts, REQUESTED_BY_SCHEDULER, settlements } from '../../src/settlement/index.ts';
import { recurringTimers } from '../harness/recurring.ts';
import { REPLAN_WORK, SCHEDULED_PAYOUTS_WORK, scheduleSettlementWork } from '../../src/settlement/workers.ts';

const at = (iso: string) => new Date(iso);

describeEachDb('recurring work', (h) => {
  const silent = createLogger('silent');
  const clock = new ManualClock('2026-02-01T10:00:30Z');

  /** One process's scheduler with one job of its own name; `work` counts its runs. */
  const scheduler = (name: string, periodMs: number, work: (since: Date) => Promise<unknown>, log: Logger = silent) => {
    const timers = new Timers(h.db(), clock, log);
    const recurring = new RecurringWork(timers, clock, log);
    recurring.every(name, periodMs, work);
    return { timers, recurring };
  };
  // each test's jobs go with it: another test's scheduler would find them due and have no handler
  afterEach(async () => { await h.db().orm.execute(sql`delete from timers where kind like 'job-%'`); });
  const timerAt = async (name: string): Promise<Date | undefined> => (await recurringTimers(h.db().orm, [name]))[0]?.runAt;

  it('runs once a tick across two processes, and moves its timer to the next tick', async () => {
    const name = `job-${uid()}`;
    let runs = 0;
    const work = async () => { runs++; };
    const a = scheduler(name, MINUTE_MS, work);
    const b = scheduler(name, MINUTE_MS, work);
    await Promise.all([a.recurring.start(), b.recurring.start()]);
    expect(await timerAt(name)).toEqual(at('2026-02-01T10:01:00Z'));
    expect(await a.timers.runDue(at('2026-02-01T10:00:59.999Z'))).toBe(0);
    const [x, y] = await Promise.all([a.timers.runDue(at('2026-02-01T10:01:00Z')), b.timers.runDue(at('2026-02-01T10:01:00Z'))]);
    await Promise.all([a.recurring.settled(), b.recurring.settled()]);
    expect(x + y).toBe(1);
    expect(runs).toBe(1);
    expect(await timerAt(name)).toEqual(at('2026-02-01T10:02:00Z'));
    // a process starting later leaves the timer where it is
    clock.set('2026-02-01T10:01:20Z');
    await scheduler(name, MINUTE_MS, work).recurring.start();
    expect(await timerAt(name)).toEqual(at('2026-02-01T10:02:00Z'));
  });

  it('runs once for the ticks missed while no process ran, then keeps to the cadence', async () => {
    const name = `job-${uid()}`;
    let runs = 0;
    const since: Date[] = [];
    const p = scheduler(name, HOUR_MS, async (s) => { runs++; since.push(s); });
    clock.set('2026-02-01T10:00:30Z');
    await p.recurring.start();
    expect(await timerAt(name)).toEqual(at('2026-02-01T11:00:00Z'));
    // down from 10:30 to 15:10: four ticks came and went; the one run is told it makes up from 11:00
    expect(await p.timers.runDue(at('2026-02-01T15:10:00Z'))).toBe(1);
    await p.recurring.settled();
    expect(runs).toBe(1);
    expect(await timerAt(name)).toEqual(at('2026-02-01T16:00:00Z'));
    expect(await p.timers.runDue(at('2026-02-01T16:00:00Z'))).toBe(1);
    await p.recurring.settled();
    expect(since).toEqual([at('2026-02-01T11:00:00Z'), at('2026-02-01T16:00:00Z')]);
  });

  it('tries a failed run again 30 s later, not a tick later, and logs the failure', async () => {
    const name = `job-${uid()}`;
    const logged: string[] = [];
    const log = createLogger('error', { write: (line: string) => { logged.push(line); } });
    let fail = true;
    let runs = 0;
    const since: Date[] = [];
    const p = scheduler(name, HOUR_MS, async (s) => { runs++; since.push(s); if (fail) throw new Error('node unreachable'); }, log);
    clock.set('2026-02-01T10:59:00Z');
    await p.recurring.start();
    clock.set('2026-02-01T11:00:05Z');
    expect(await p.timers.runDue(clock.now())).toBe(1);
    await p.recurring.settled();
    expect(runs).toBe(1);
    expect(await timerAt(name)).toEqual(at('2026-02-01T11:00:35Z'));
    expect(logged.join('\n')).toMatch(/recurring work failed; trying again soon/);
    expect(logged.join('\n')).toContain('node unreachable');
    fail = false;
    expect(await p.timers.runDue(at('2026-02-01T11:00:34Z'))).toBe(0);
    expect(await p.timers.runDue(at('2026-02-01T11:00:35Z'))).toBe(1);
    await p.recurring.settled();
    expect(runs).toBe(2);
    expect(await timerAt(name)).toEqual(at('2026-02-01T12:00:00Z'));
    // the retry still covers the tick the failed run was for
    expect(since).toEqual([at('2026-02-01T11:00:00Z'), at('2026-02-01T11:00:00Z')]);
  });

  it('skips a tick while the run of the last one is still going here, and settled() waits for that run', async () => {
    const name = `job-${uid()}`;
    let runs = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    const since: Date[] = [];
    const p = scheduler(name, MINUTE_MS, async (s) => { runs++; since.push(s); await held; });
    clock.set('2026-02-01T10:00:30Z');
    await p.recurring.start();
    expect(await p.timers.runDue(at('2026-02-01T10:01:00Z'))).toBe(1);
    expect(await p.timers.runDue(at('2026-02-01T10:02:00Z'))).toBe(1);
    expect(runs).toBe(1);
    let settled = false;
    const waiting = p.recurring.settled().then(() => { settled = true; });
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    release();
    await waiting;
    expect(await timerAt(name)).toEqual(at('2026-02-01T10:03:00Z'));
    expect(await p.timers.runDue(at('2026-02-01T10:03:00Z'))).toBe(1);
    await p.recurring.settled();
    expect(runs).toBe(2);
    // the run after the skipped tick covers it too
    expect(since).toEqual([at('2026-02-01T10:01:00Z'), at('2026-02-01T10:02:00Z')]);
  });

  describeSettlementWork(h);
});

/** The settlement room's jobs: replanning every minute, scheduled payouts every hour. */
function describeSettlementWork(h: Parameters<Parameters<typeof describeEachDb>[1]>[0]): void {
  let t: TestApp;
  const clock = new ManualClock('2026-03-02T09:59:30Z'); // a Monday
  beforeAll(async () => { t = await startTestApp(h.db(), { clock }); });
  afterAll(async () => { await t.close(); });

  it('settlement pays scheduled merchants out on the hour, and replans a settlement waiting for its address on the minute', async () => {
    const merchantId = await scheduledMerchantWithBalance(t, 20);
    const recurring = new RecurringWork(t.platform.timers, clock, t.platform.log);
    scheduleSettlementWork(t.services.settlement, recurring);
    await recurring.start();
    const settlementTimers = () => recurringTimers(h.db().orm, [REPLAN_WORK, SCHEDULED_PAYOUTS_WORK]);
    expect(await settlementTimers()).toEqual([
      { job: REPLAN_WORK, runAt: at('2026-03-02T10:00:00Z') },
      { job: SCHEDULED_PAYOUTS_WORK, runAt: at('2026-03-02T10:00:00Z') },
    ]);
    const made = () => h.db().orm.select().from(payouts).where(and(eq(payouts.merchantId, merchantId), eq(payouts.requestedBy, REQUESTED_BY_SCHEDULER)));
    expect(await made()).toHaveLength(0);
    const [balance] = await h.db().orm.select().from(balances).where(and(eq(balances.merchantId, merchantId), eq(balances.livemode, true), eq(balances.token, 'USDT_TRC20')));
    expect(balance.available).toBeGreaterThan(10_000_000n); // a daily payout is due from $10
    clock.set('2026-03-02T10:00:00Z');
    expect(await t.platform.timers.runDue(clock.now())).toBe(2);
    await recurring.settled();
    expect(await made()).toMatchObject([{ token: 'USDT_TRC20', amount: balance.available, status: 'requested' }]);
    // each moved to its next tick
    expect(await settlementTimers()).toEqual([
      { job: REPLAN_WORK, runAt: at('2026-03-02T10:01:00Z') },
      { job: SCHEDULED_PAYOUTS_WORK, runAt: at('2026-03-02T11:00:00Z') },
    ]);

    // a settlement waiting 24 h for a changed payout address is planned again by the first tick after
    const direct = (await signupAccount(t.app)).merchant.id;
    const owner = await addMember(t, direct, 'owner');
    const ctx = { merchantId: direct, userId: owner.userId, actor: { kind: 'merchant' as const, id: owner.userId } };
    const address = await t.services.settlement.addresses.add(ctx, true, { token: 'USDT_TRC20', address: ADDR.TRON, password: owner.password });
    await t.services.settlement.addresses.update(ctx, address.id, { address: ADDR.TRON_2, password: owner.password });
    const [waiting] = await t.services.settlement.settle(t.platform.db, input(payment(direct, { livemode: true }), [{ amount: 30_000_000n, usd: '30' }], clock.now()));
    expect(waiting.awaitsUntil).toEqual(at('2026-03-03T10:00:00Z'));
    clock.set('2026-03-03T10:00:00Z');
    expect(await t.platform.timers.runDue(clock.now())).toBe(2);
    await recurring.settled();
    const [planned] = await h.db().orm.select().from(settlements).where(eq(settlements.id, waiting.id));
    expect(planned).toMatchObject({ awaitsUntil: null, destination: ADDR.TRON_2 });
  });
}
