// Each integration file runs once on PGlite (in memory) and once on a fresh PostgreSQL database
// of its own (created and dropped here), so files never see each other's rows.
import { afterAll, beforeAll, describe, inject } from 'vitest';
import type { Database, EngineKind } from '../../src/platform/db/index.ts';
import { createPgDatabase as createScratchPg, openScratchDatabase } from './scratch-db.ts';
import { guardTransactions } from './tx-guard.ts';

export interface DbHandle {
  kind: EngineKind;
  /** The open, migrated database (valid inside tests and hooks). */
  db(): Database;
  /** Connection string of the PostgreSQL database (null on PGlite). */
  url(): string | null;
}

export const pgServerUrl = (): string => inject('pgUrl');

/** A fresh, empty database on the test server (the one global setup found). */
export const createPgDatabase = (serverUrl = pgServerUrl()) => createScratchPg(serverUrl);

export async function openTestDatabase(kind: EngineKind): Promise<{ db: Database; url: string | null; dispose: () => Promise<void> }> {
  const s = await openScratchDatabase(kind, { serverUrl: pgServerUrl() });
  return { db: guardTransactions(s.db), url: s.url, dispose: s.drop };
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
