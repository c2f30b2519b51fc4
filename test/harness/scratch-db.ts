// Scratch databases for tests and benchmarks: a fresh, empty PostgreSQL database on a server
// (created here, dropped by `drop`), or PGlite in memory. No test-runner imports, so benches use it too.
import crypto from 'node:crypto';
import pg from 'pg';
import { migrate, openPglite, openPostgres, type Database } from '../../src/platform/db/index.ts';
import { holdOutside } from './held-outside.ts';

export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const testServerUrl = (): string => process.env.TEST_DATABASE_URL || DEFAULT_TEST_DATABASE_URL;

async function adminQuery(serverUrl: string, text: string): Promise<void> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try { await c.query(text); } finally { await c.end(); }
}

/** A fresh, empty database on the server; returns its URL and a drop function. */
export async function createPgDatabase(serverUrl = testServerUrl(), prefix = 'gw_test'): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${name}`);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: holdOutside(() => adminQuery(serverUrl, `drop database if exists ${name} with (force)`)) };
}

/** An open, migrated scratch database of either engine (migrated from `migrationsDir` when given), and how to dispose of it. */
export async function openScratchDatabase(kind: 'pglite' | 'postgres', opts: { serverUrl?: string; poolMax?: number; prefix?: string; migrationsDir?: string } = {}): Promise<{ db: Database; url: string | null; drop: () => Promise<void> }> {
  if (kind === 'pglite') {
    const db = await openPglite(null);
    await migrate(db, opts.migrationsDir);
    return { db, url: null, drop: () => db.close() };
  }
  const created = await createPgDatabase(opts.serverUrl, opts.prefix);
  const db = await openPostgres(created.url, { max: opts.poolMax ?? 10 });
  await migrate(db, opts.migrationsDir);
  return { db, url: created.url, drop: async () => { await db.close(); await created.drop(); } };
}
