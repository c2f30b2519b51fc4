// The service as an operator runs it: start, health, SIGTERM, bad configuration, restart.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { freePort, spawnService, waitListening } from '../harness/process.ts';
import { openPglite, openPostgres, queryRows } from '../../src/platform/db/index.ts';
import { HOUR_MS, MINUTE_MS } from '../../src/platform/recurring.ts';
import { recurringTimers } from '../harness/recurring.ts';
import { REPLAN_WORK, SCHEDULED_PAYOUTS_WORK } from '../../src/settlement/workers.ts';
import { MAIL_PRUNE_WORK } from '../../src/mail/index.ts';
import { appendEvent } from '../../src/events/index.ts';
import { createPgDatabase, pgServerUrl } from '../harness/databases.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'gw-proc-'));

/** The started workers put the recurring work (mail pruning, the settlement room's) in the timers table. */
function expectRecurringWork(timers: { job: string; runAt: Date }[]): void {
  expect(timers.map((t) => t.job)).toEqual([MAIL_PRUNE_WORK, REPLAN_WORK, SCHEDULED_PAYOUTS_WORK]);
  const [prune, replan, payouts] = timers.map((t) => t.runAt.getTime());
  expect(prune % HOUR_MS).toBe(0);
  expect(replan % MINUTE_MS).toBe(0);
  expect(payouts % HOUR_MS).toBe(0);
}

describe('the service process', () => {
  it('starts on PGlite, prints listening, answers /healthz, and exits 0 on SIGTERM within 10 s', async () => {
    const port = await freePort();
    const dataDir = tmp();
    const p = spawnService({ PORT: String(port), DATA_DIR: dataDir });
    await waitListening(p);
    expect(p.output()).toContain(`listening on http://127.0.0.1:${port}`);
    expect(p.output()).toMatch(/WALLET_MNEMONIC is not set/);
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    const t0 = Date.now();
    p.child.kill('SIGTERM');
    const { code } = await p.exited;
    expect(code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);

    // Data survives a restart: a row written between two runs is still there after the second.
    const db = await openPglite(path.join(dataDir, 'pglite'));
    await db.transaction((tx) => appendEvent(tx, { type: 'restart.probe', livemode: false, data: {}, at: new Date() }));
    await db.close();
    const again = spawnService({ PORT: String(port), DATA_DIR: dataDir });
    await waitListening(again);
    again.child.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
    const reopened = await openPglite(path.join(dataDir, 'pglite'));
    const rows = await queryRows<{ n: number }>(reopened.orm, sql`select count(*)::int as n from events where type = 'restart.probe'`);
    expect(rows[0].n).toBe(1);
    expectRecurringWork(await recurringTimers(reopened.orm));
    await reopened.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 150_000);

  it('SIGTERM lets an in-flight request finish before exiting', async () => {
    const port = await freePort();
    const p = spawnService({ PORT: String(port), DATA_DIR: tmp() });
    await waitListening(p);
    // several requests in flight at the moment of SIGTERM
    const inflight = Array.from({ length: 5 }, () => fetch(`http://127.0.0.1:${port}/healthz`)
      .then(async (r) => ({ status: r.status, body: await r.text() }))
      .catch((err: Error & { cause?: { code?: string } }) => ({ error: err.cause?.code ?? err.message })));
    p.child.kill('SIGTERM');
    const outcomes = await Promise.all(inflight);
    // each is answered in full (a complete JSON body), or its connection is refused or closed
    // before any answer began (a connection accepted but not yet read counts as idle when the
    // server closes); never cut off half-way through an answer
    for (const o of outcomes) {
      if ('status' in o) {
        expect([200, 503]).toContain(o.status);
        expect(() => JSON.parse(o.body)).not.toThrow();
      } else {
        expect(['ECONNREFUSED', 'ECONNRESET']).toContain(o.error);
      }
    }
    expect((await p.exited).code).toBe(0);
  }, 120_000);

  it('exits 0 on a SIGTERM sent the moment `listening on` is printed', async () => {
    // Whoever reads that line may stop the service at once: the handler must already be there.
    const p = spawnService({ PORT: '0', DATA_DIR: tmp() });
    p.child.stdout!.on('data', () => { if (/listening on /.test(p.output())) p.child.kill('SIGTERM'); });
    expect(await p.exited).toEqual({ code: 0, signal: null });
  }, 120_000);

  it.skipIf(!pgServerUrl())('starts on PostgreSQL with DATABASE_URL, two processes migrating at once', async () => {
    const created = await createPgDatabase();
    const [p1, p2] = [await freePort(), await freePort()];
    const a = spawnService({ PORT: String(p1), DATA_DIR: tmp(), DATABASE_URL: created.url });
    const b = spawnService({ PORT: String(p2), DATA_DIR: tmp(), DATABASE_URL: created.url });
    await Promise.all([waitListening(a), waitListening(b)]);
    for (const port of [p1, p2]) expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    // one timer for each recurring job, whichever process put it in place first
    const db = await openPostgres(created.url, { max: 1 });
    expectRecurringWork(await recurringTimers(db.orm));
    await db.close();
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    expect((await a.exited).code).toBe(0);
    expect((await b.exited).code).toBe(0);
    await created.drop();
  }, 150_000);

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://nope' }, 'DATABASE_URL'],
    [{ WALLET_MNEMONIC: 'twelve words that are not a mnemonic at all' }, 'WALLET_MNEMONIC'],
  ])('exits non-zero with one line naming the bad variable (%j)', async (env, name) => {
    const p = spawnService({ PORT: '0', DATA_DIR: tmp(), ...env });
    const { code } = await p.exited;
    expect(code).not.toBe(0);
    const lines = p.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(name);
  }, 120_000);
});
