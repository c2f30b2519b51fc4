// Each integration file runs once on PGlite (in memory) and once on a fresh PostgreSQL database
// of its own (created and dropped here), so files never see each other's rows.
import { afterAll, beforeAll, describe, inject } from 'vitest';
import crypto from 'node:crypto';
import pg from 'pg';
import { migrate, openPglite, openPostgres, type Database, type EngineKind } from '../../src/platform/db/index.ts';

export interface DbHandle {
  kind: EngineKind;
  /** The open, migrated database (valid inside tests and hooks). */
  db(): Database;
  /** Connection string of the PostgreSQL database (null on PGlite). */
  url(): string | null;
}

export const pgServerUrl = (): string => inject('pgUrl');

/** A fresh, empty PostgreSQL database on the test server; returns its URL and a drop function. */
export async function createPgDatabase(serverUrl = pgServerUrl()): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `gw_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export async function openTestDatabase(kind: EngineKind): Promise<{ db: Database; url: string | null; dispose: () => Promise<void> }> {
  if (kind === 'pglite') {
    const db = await openPglite(null);
    await migrate(db);
    return { db, url: null, dispose: () => db.close() };
  }
  const created = await createPgDatabase();
  const db = await openPostgres(created.url, { max: 10 });
  await migrate(db);
  return { db, url: created.url, dispose: async () => { await db.close(); await created.drop(); } };
}

/** Defines the suite once per engine; the PostgreSQL one is skipped when no server is reachable. */
export function describeEachDb(title: string, body: (h: DbHandle) => void): void {
  for (const kind of ['pglite', 'postgres'] as const) {
    const skip = kind === 'postgres' && !pgServerUrl();
    describe.skipIf(skip)(`${title} [${kind}]`, () => {
      let opened: Awaited<ReturnType<typeof openTestDatabase>> | null = null;
      beforeAll(async () => { opened = await openTestDatabase(kind); });
      afterAll(async () => { await opened?.dispose(); });
      body({ kind, db: () => opened!.db, url: () => opened!.url });
    });
  }
}
