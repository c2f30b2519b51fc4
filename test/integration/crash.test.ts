// kill -9 during a burst of writes, then restart: no half-applied change, no lost outbox event,
// and the dispatcher hands every committed event over exactly in order.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { migrate, openPglite, openPostgres, queryRows, type Database } from '../../src/platform/db/index.ts';
import { OutboxDispatcher, type StoredEvent } from '../../src/events/index.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createPgDatabase, pgServerUrl } from '../harness/databases.ts';
import { NODE } from '../harness/node.ts';
import { migratedSnapshot } from '../harness/pglite-snapshot.ts';

const script = path.resolve(import.meta.dirname, '../fixtures/write-burst.ts');

/** Runs the writer until it reported `atLeast` commits, then SIGKILLs it; returns the last number it reported. */
function burstThenKill(kind: string, target: string, atLeast: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [script, kind, target], { stdio: ['ignore', 'pipe', 'pipe'] });
    let last = 0;
    let buf = '';
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    child.stdout.on('data', (d) => {
      buf += d;
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const l of lines) if (l) last = Number(l);
      if (last >= atLeast && !child.killed) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(last);
      else reject(new Error(`writer exited by itself (${code}): ${err}`));
    });
  });
}

async function verify(db: Database, lastReported: number): Promise<void> {
  await migrate(db);
  const rows = await queryRows<{ n: number }>(db.orm, sql`select n from crash_probe order by n`);
  const evs = await queryRows<{ n: number }>(db.orm, sql`select (data->>'n')::int as n from events where type = 'probe.written' order by seq`);
  // every committed change has exactly its event, and nothing half-applied exists
  expect(rows.map((r) => r.n)).toEqual(evs.map((e) => e.n));
  expect(rows.length).toBeGreaterThanOrEqual(lastReported);
  expect(rows.map((r) => r.n)).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));

  const seen: StoredEvent[] = [];
  const dispatcher = new OutboxDispatcher(db, createLogger('silent'));
  dispatcher.subscribe({ name: 'recorder', handle: async (_tx, batch) => { seen.push(...batch); } });
  await dispatcher.drainNow();
  expect(seen.map((e) => (e.data as { n: number }).n)).toEqual(rows.map((r) => r.n));
  expect(await dispatcher.drainNow()).toBe(0);
}

describe('kill -9 during a burst of writes', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => { for (const c of cleanups) await c(); });

  it('PGlite: reopened after the kill, every committed change has its event, none half-applied', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-crash-'));
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    // The writer opens a data directory already migrated (from the suite's snapshot, as every test
    // database starts): its time goes to the burst being killed, not to initdb and the migrations.
    const seeded = await openPglite(dir, { loadDataDir: await migratedSnapshot() });
    await seeded.close();
    const last = await burstThenKill('pglite', dir, 60);
    const db = await openPglite(dir);
    try { await verify(db, last); } finally { await db.close(); }
  }, 60_000);

  it.skipIf(!pgServerUrl())('PostgreSQL: same after the kill', async () => {
    const created = await createPgDatabase();
    cleanups.push(created.drop);
    const last = await burstThenKill('postgres', created.url, 200);
    const db = await openPostgres(created.url);
    try { await verify(db, last); } finally { await db.close(); }
  }, 60_000);
});
