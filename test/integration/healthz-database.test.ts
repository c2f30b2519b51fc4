// GET /healthz (CONTRACT.md "Commands", "Live chains"): 200 {"status":"ok"} while the database
// answers, and not while it does not; back to 200 once it answers again. PostgreSQL only: the
// server is made to refuse the app's connections, which PGlite (in process) cannot do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openTestDatabase, pgServerUrl } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';

describe.skipIf(!pgServerUrl())('/healthz follows the database [postgres]', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let t: TestApp;
  let name: string;
  beforeAll(async () => {
    opened = await openTestDatabase('postgres');
    name = new URL(opened.url!).pathname.slice(1);
    t = await startTestApp(opened.db);
  });
  afterAll(async () => {
    await server(`alter database ${name} allow_connections true`);
    await t.close();
    await opened.dispose();
  });

  async function server(text: string): Promise<void> {
    const c = new pg.Client({ connectionString: pgServerUrl() });
    await c.connect();
    try { await c.query(text); } finally { await c.end(); }
  }
  const health = async () => { const r = await t.app.inject({ method: 'GET', url: '/healthz' }); return [r.statusCode, r.json()]; };

  it('answers 503 while the database refuses connections, 200 once it takes them again', async () => {
    expect(await health()).toEqual([200, { status: 'ok' }]);
    await server(`alter database ${name} allow_connections false`);
    await server(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`);
    // an idle connection the pool has not yet seen closed may fail one check on its own: ask until none is left
    let down: unknown[] = [];
    for (let i = 0; i < 20; i++) {
      down = await health();
      if (down[0] === 503) break;
    }
    expect(down).toEqual([503, { status: 'unavailable' }]);
    await server(`alter database ${name} allow_connections true`);
    let up: unknown[] = [];
    for (let i = 0; i < 50 && up[0] !== 200; i++) {
      up = await health();
      if (up[0] !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(up).toEqual([200, { status: 'ok' }]);
  });
});
