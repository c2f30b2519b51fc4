// Once per run: builds the web pages when their sources changed, and finds the PostgreSQL server
// for the PostgreSQL half of the integration suite.
// Without one, that half is skipped with one printed line; the PGlite half always runs.
import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { testServerUrl } from './scratch-db.ts';
import { ensureWebBuilt } from '../../web/build.ts';


declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  // The browser tests serve the built pages: build them when a source changed since.
  if (ensureWebBuilt() === 'failed') throw new Error('building the web pages failed');
  const url = testServerUrl();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    project.provide('pgUrl', url);
  } catch (err) {
    const safe = url.replace(/\/\/[^@]*@/, '//');
    console.log(`PostgreSQL tests skipped: no server reachable at ${safe} (${(err as Error).message}); set TEST_DATABASE_URL to run them`);
    project.provide('pgUrl', '');
  } finally {
    await client.end().catch(() => {});
  }
}
