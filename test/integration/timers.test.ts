// Durable timers (src/platform/timers.ts): due work runs once, moves when rescheduled, survives a
// restart (a new scheduler finds the rows), is retried after a failure, and two schedulers racing
// on one database never run a timer twice.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { Timers, scheduleTimer } from '../../src/platform/timers.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { queryRows } from '../../src/platform/db/index.ts';
import { uid } from '../harness/accounts.ts';

describeEachDb('timers', (h) => {
  const log = createLogger('silent');
  const clock = new ManualClock('2026-02-01T00:00:00Z');
  beforeAll(async () => {
    await h.db().orm.execute(sql`create table if not exists timer_probe (key text, at timestamptz)`);
  });
  afterAll(async () => { await h.db().orm.execute(sql`drop table if exists timer_probe`); });

  const probe = (kind: string) => {
    const timers = new Timers(h.db(), clock, log);
    timers.handle(kind, async (tx, t, now) => {
      await tx.execute(sql`insert into timer_probe (key, at) values (${t.key}, ${now.toISOString()})`);
    });
    return timers;
  };
  /** A started scheduler on the real clock, recording the keys of its kind's timers as they run. */
  const running = (pollMs: number) => {
    const kind = `k-${uid()}`;
    const timers = new Timers(h.db(), { now: () => new Date() }, log, { pollMs });
    const seen: string[] = [];
    timers.handle(kind, async (_tx, t) => { seen.push(t.key); });
    timers.start();
    return { kind, timers, seen };
  };
  const ran = async (key: string) => (await queryRows<{ key: string }>(h.db().orm, sql`select key from timer_probe where key = ${key}`)).length;

  it('runs a timer once when due, not before; rescheduling moves it', async () => {
    const kind = `k-${uid()}`;
    const timers = probe(kind);
    const key = uid();
    await timers.schedule(h.db().orm, { kind, key, runAt: new Date(clock.now().getTime() + 1000) });
    expect(await timers.runDue(clock.now())).toBe(0);
    await timers.schedule(h.db().orm, { kind, key, runAt: new Date(clock.now().getTime() + 5000) });
    expect(await timers.runDue(new Date(clock.now().getTime() + 2000))).toBe(0);
    expect(await timers.runDue(new Date(clock.now().getTime() + 5000))).toBe(1);
    expect(await timers.runDue(new Date(clock.now().getTime() + 9000))).toBe(0);
    expect(await ran(key)).toBe(1);
  });

  it('survives a restart: another scheduler runs what an earlier one scheduled', async () => {
    const kind = `k-${uid()}`;
    const key = uid();
    await scheduleTimer(h.db().orm, { kind, key, runAt: clock.now() });
    const fresh = probe(kind);
    expect(await fresh.runDue(clock.now())).toBe(1);
    expect(await ran(key)).toBe(1);
  });

  it('a failing handler rolls its work back and is retried later', async () => {
    const kind = `k-${uid()}`;
    const key = uid();
    let fail = true;
    const timers = new Timers(h.db(), clock, log);
    timers.handle(kind, async (tx, t) => {
      await tx.execute(sql`insert into timer_probe (key, at) values (${t.key}, now())`);
      if (fail) throw new Error('boom');
    });
    await timers.schedule(h.db().orm, { kind, key, runAt: clock.now() });
    expect(await timers.runDue(clock.now())).toBe(0);
    expect(await ran(key)).toBe(0);
    fail = false;
    expect(await timers.runDue(new Date(clock.now().getTime() + 10_000))).toBe(1);
    expect(await ran(key)).toBe(1);
  });

  it('two schedulers racing run each timer exactly once', async () => {
    const kind = `k-${uid()}`;
    const a = probe(kind);
    const b = probe(kind);
    const keys = Array.from({ length: 20 }, () => uid());
    for (const key of keys) await scheduleTimer(h.db().orm, { kind, key, runAt: clock.now() });
    const [x, y] = await Promise.all([a.runDue(clock.now()), b.runDue(clock.now())]);
    expect(x + y).toBe(20);
    for (const key of keys) expect(await ran(key)).toBe(1);
  });

  it('the scheduler wakes after the commit that scheduled a timer, and sleeps until it is due', async () => {
    const { kind, timers, seen } = running(5000);
    try {
      const key = uid();
      await h.db().transaction((tx) => timers.schedule(tx, { kind, key, runAt: new Date(Date.now() + 150) }));
      const t0 = Date.now();
      while (seen.length === 0 && Date.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toEqual([key]);
    } finally {
      await timers.stop();
    }
  });

  it('a timer due later than the next look does not wake the scheduler, and still runs when due', async () => {
    const { kind, timers, seen } = running(300);
    try {
      while (timers.cycles === 0) await new Promise((r) => setTimeout(r, 5));
      // Far off (a payment deadline): committing it costs the scheduler nothing, until its next poll.
      await h.db().transaction((tx) => timers.schedule(tx, { kind, key: uid(), runAt: new Date(Date.now() + 3_600_000) }));
      timers.committed(new Date(Date.now() + 3_600_000));
      await new Promise((r) => setTimeout(r, 60));
      expect(timers.cycles).toBe(1);
      // Due in 700 ms, beyond two poll intervals: found by a polling cycle, and run on time.
      const key = uid();
      const t0 = Date.now();
      await h.db().transaction((tx) => timers.schedule(tx, { kind, key, runAt: new Date(t0 + 700) }));
      while (seen.length === 0 && Date.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 10));
      expect(seen).toEqual([key]);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(690);
      expect(Date.now() - t0).toBeLessThan(1500);
    } finally {
      await timers.stop();
    }
  });
});
