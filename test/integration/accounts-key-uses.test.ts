// api_keys.last_used_at written in groups (src/accounts/key-uses.ts), on a real database.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { inArray } from 'drizzle-orm';
import pg from 'pg';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount } from '../harness/accounts.ts';
import { KeyUseRecorder } from '../../src/accounts/key-uses.ts';
import { insertApiKey } from '../../src/accounts/api-keys.ts';
import { apiKeys } from '../../src/accounts/schema.ts';
import { createLogger } from '../../src/platform/logger.ts';

/**
 * Waits until another session's `update api_keys` is waiting for a lock (pg_stat_activity). `c` may be
 * inside a transaction, where the server keeps the first activity snapshot it read until the end:
 * each poll clears it, or a poll made before the update arrived would be answered again and again.
 */
async function waitForBlockedUpdate(c: pg.Client): Promise<void> {
  await vi.waitFor(async () => {
    await c.query('select pg_stat_clear_snapshot()');
    const r = await c.query(`select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like 'update api_keys%' and pid <> pg_backend_pid()`);
    expect(r.rowCount, 'the update waits on the lock').toBeGreaterThan(0);
  }, { timeout: 10_000, interval: 5 });
}

describeEachDb('api key uses', (h) => {
  let t: TestApp;
  const ids: string[] = [];
  const lastUsed = async () => new Map((await h.db().orm.select().from(apiKeys).where(inArray(apiKeys.id, ids))).map((k) => [k.id, k.lastUsedAt?.getTime() ?? null]));

  beforeAll(async () => {
    t = await startTestApp(h.db());
    const account = await signupAccount(t.app);
    for (let i = 0; i < 3; i++) ids.push((await insertApiKey(h.db().orm, { merchantId: account.merchant.id, livemode: false, label: `use-${i}`, access: 'full', createdBy: null, at: new Date() })).row.id);
  });
  afterAll(async () => { await t.close(); });

  it('writes the uses of many keys in one statement, soon after, and each key at most every 4 seconds', async () => {
    const recorder = new KeyUseRecorder(h.db(), createLogger('silent'));
    const at = new Date(Date.now() - 1000);
    for (const id of ids) recorder.record(id, at);
    // A second use of a key recorded moments ago waits for a later one.
    recorder.record(ids[0], new Date(at.getTime() + 10));
    expect([...(await lastUsed()).values()]).toEqual([null, null, null]);
    const t0 = Date.now();
    while (recorder.writes === 0 && Date.now() - t0 < 2000) await new Promise((r) => setTimeout(r, 20));
    await recorder.flush();
    expect(recorder.writes).toBe(1);
    expect([...(await lastUsed()).values()]).toEqual([at.getTime(), at.getTime(), at.getTime()]);
  });

  // A statement held up by another session's row lock stands for any slow write: a flush (what
  // shutdown calls) must not return before the write the gathering timer already sent is done.
  it.skipIf(h.kind !== 'postgres')('returns from a flush only once a write already under way is done', async () => {
    const locker = new pg.Client({ connectionString: h.url()! });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('select 1 from api_keys where id = $1 for update', [ids[2]]);
      const recorder = new KeyUseRecorder(h.db(), createLogger('silent'));
      const at = new Date(Date.now() + 120_000);
      recorder.record(ids[2], at);
      const first = recorder.flush();
      let returned = false;
      const second = recorder.flush().then(() => { returned = true; });
      // the timer's update is at the server, waiting on the lock (checked, not slept on)
      await waitForBlockedUpdate(locker);
      expect(returned).toBe(false);
      await locker.query('commit');
      await Promise.all([first, second]);
      expect((await lastUsed()).get(ids[2])).toBe(at.getTime());
    } finally {
      await locker.end();
    }
  });

  it('never moves last_used_at backwards, and writes what is waiting when flushed (shutdown)', async () => {
    const later = new Date(Date.now() + 60_000);
    const recorder = new KeyUseRecorder(h.db(), createLogger('silent'));
    recorder.record(ids[1], later);
    await recorder.flush();
    const other = new KeyUseRecorder(h.db(), createLogger('silent'));
    other.record(ids[1], new Date(later.getTime() - 30_000));
    await other.flush();
    expect((await lastUsed()).get(ids[1])).toBe(later.getTime());
  });
});
