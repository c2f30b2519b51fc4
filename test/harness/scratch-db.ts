// Scratch databases for tests and benchmarks: a fresh, empty PostgreSQL database on a server
// (created here, dropped by `drop`), or PGlite in memory. No test-runner imports, so benches use it too.
import crypto from 'node:crypto';
import pg from 'pg';
import { migrate, openPglite, openPostgres, type Database } from '../../src/platform/db/index.ts';
import { holdOutside } from './held-outside.ts';
import { migratedSnapshot } from './pglite-snapshot.ts';
import { migratedTemplate } from './pg-template.ts';

export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const testServerUrl = (): string => process.env.TEST_DATABASE_URL || DEFAULT_TEST_DATABASE_URL;

async function adminQuery(serverUrl: string, text: string): Promise<void> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try { await c.query(text); } finally { await c.end(); }
}

/** A fresh database on the server, empty or a copy of `template`; returns its URL and a drop function. */
export async function createPgDatabase(serverUrl = testServerUrl(), prefix = 'gw_test', template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, template ? `create database ${name} template ${template}` : `create database ${name}`);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: holdOutside(() => adminQuery(serverUrl, `drop database if exists ${name} with (force)`)) };
}

/** An open, migrated scratch database of either engine (migrated from `migrationsDir` when given), and how to dispose of it. */
export async function openScratchDatabase(kind: 'pglite' | 'postgres', opts: { serverUrl?: string; poolMax?: number; prefix?: string; migrationsDir?: string } = {}): Promise<{ db: Database; url: string | null; drop: () => Promise<void> }> {
  if (kind === 'pglite') {
    // The project's own migrations: started from their migrated snapshot (pglite-snapshot.ts);
    // migrate() then finds nothing to apply. Another directory's migrations run from initdb.
    const db = opts.migrationsDir ? await openPglite(null) : await openPglite(null, { loadDataDir: await migratedSnapshot() });
    await migrate(db, opts.migrationsDir);
    return { db, url: null, drop: () => db.close() };
  }
  // The project's own migrations: copied from their migrated template (pg-template.ts).
  const serverUrl = opts.serverUrl ?? testServerUrl();
  const created = await createPgDatabase(serverUrl, opts.prefix, opts.migrationsDir ? undefined : await migratedTemplate(serverUrl));
  const db = await openPostgres(created.url, { max: opts.poolMax ?? 10 });
  await migrate(db, opts.migrationsDir);
  return { db, url: created.url, drop: async () => { await db.close(); await created.drop(); } };
}
