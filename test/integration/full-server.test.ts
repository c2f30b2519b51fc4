// A PostgreSQL server with no connection to spare (other processes hold them all) makes a query
// wait for one, not fail: on a shared, busy machine a payment creation whose pool had to open a
// connection was answered 500 (`sorry, too many clients already`). The server's refusal is made
// certain here with a role limited to one connection, held by another client.
import crypto from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { migrate, openPostgres, type Database } from '../../src/platform/db/index.ts';
import { PatientPool } from '../../src/platform/db/patient-pool.ts';
import { createPgDatabase, testServerUrl } from '../harness/scratch-db.ts';
import { startTestApp } from '../harness/app.ts';
import { keyHeader, signupAccount } from '../harness/accounts.ts';

const role = `gw_one_conn_${crypto.randomBytes(4).toString('hex')}`;
let scratch: { url: string; drop: () => Promise<void> };
let limitedUrl: string;

async function asAdmin(text: string, url = testServerUrl()): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try { return (await c.query(text)).rowCount ?? 0; } finally { await c.end(); }
}

beforeAll(async () => {
  scratch = await createPgDatabase(testServerUrl(), 'gw_full');
  // Not a superuser: PostgreSQL holds superusers to no connection limit.
  await asAdmin(`create role ${role} login connection limit 1`);
  const admin = await openPostgres(scratch.url, { max: 2 });
  try { await migrate(admin); } finally { await admin.close(); }
  await asAdmin(`grant all on all tables in schema public to ${role}; grant all on all sequences in schema public to ${role}; grant create on schema public to ${role}`, scratch.url);
  const u = new URL(scratch.url);
  u.username = role;
  limitedUrl = u.toString();
});

// A closed connection's server process leaves a moment after the client hears it closed, and until
// then it still counts against the role's limit: the next test starts once none is left.
afterEach(async () => {
  await vi.waitFor(async () => {
    expect(await asAdmin(`select 1 from pg_stat_activity where usename = '${role}'`)).toBe(0);
  }, { timeout: 10_000, interval: 20 });
});

afterAll(async () => {
  await scratch?.drop();
  await asAdmin(`drop role if exists ${role}`);
});

it('waits for a connection the full server refused, and runs the query once one is free', async () => {
  const holder = new pg.Client({ connectionString: limitedUrl });
  await holder.connect();
  let db: Database | undefined;
  try {
    db = await openPostgres(limitedUrl, { max: 2 });
    const pool = db.pool as PatientPool;
    let settled = false;
    const answer = pool.query<{ one: number }>('select 1 as one')
      .then((r) => r.rows[0].one, (err: { code?: string }) => `failed: ${err.code}`)
      .finally(() => { settled = true; });
    // The server said no at least once while the only connection was held (a pool that gives up
    // has answered by then)...
    await vi.waitFor(() => expect(settled || (pool.refusals ?? 0) > 0).toBe(true), { timeout: 10_000 });
    await holder.end();
    // ...and the query ran when the connection came free, instead of failing.
    expect(await answer).toBe(1);
  } finally {
    await holder.end().catch(() => {});
    await db?.close();
  }
});

it('gives the refusal to the caller once the server has refused for longer than the pool waits', async () => {
  const holder = new pg.Client({ connectionString: limitedUrl });
  await holder.connect();
  const pool = new PatientPool({ connectionString: limitedUrl, max: 1, patienceMs: 300 });
  try {
    // The only connection stays held: the server never lets this pool in.
    await expect(pool.query('select 1')).rejects.toMatchObject({ code: '53300' });
    expect(pool.refusals).toBeGreaterThan(0);
  } finally {
    await pool.end();
    await holder.end();
  }
});

it('still fails at once on an error that is not the server being full', async () => {
  const u = new URL(limitedUrl);
  u.pathname = '/gw_no_such_database';
  const pool = new PatientPool({ connectionString: u.toString(), max: 1 });
  try {
    await expect(pool.query('select 1')).rejects.toMatchObject({ code: '3D000' });
    expect(pool.refusals).toBe(0);
  } finally {
    await pool.end();
  }
});

/**
 * An app on the limited role whose pool holds every connection it has, the server taking no more of
 * the role: the next request that needs a connection must ask the server for a new one.
 */
async function withFullServer(patienceMs: number | undefined, body: (x: { t: Awaited<ReturnType<typeof startTestApp>>; acct: Awaited<ReturnType<typeof signupAccount>>; pool: PatientPool; held: pg.PoolClient[] }) => Promise<void>): Promise<void> {
  await asAdmin(`alter role ${role} connection limit -1`);
  const db = await openPostgres(limitedUrl, { max: 4, patienceMs });
  const t = await startTestApp(db);
  const held: pg.PoolClient[] = [];
  try {
    const acct = await signupAccount(t.app);
    const pool = db.pool as PatientPool;
    await vi.waitFor(() => expect(pool.idleCount).toBe(pool.totalCount));
    while (pool.idleCount > 0) held.push(await pool.connect());
    const open = await asAdmin(`select 1 from pg_stat_activity where usename = '${role}'`);
    await asAdmin(`alter role ${role} connection limit ${open}`);
    // the pool may open up to 4: the request needs a new one
    expect(pool.totalCount).toBeLessThan(4);
    await body({ t, acct, pool, held });
  } finally {
    for (const c of held) c.release();
    await t.close();
    await db.close();
    await asAdmin(`alter role ${role} connection limit 1`);
  }
}

it('answers a payment creation once the full server lets a connection through, not 500', async () => {
  await withFullServer(undefined, async ({ t, acct, pool, held }) => {
    let settled = false;
    const creating = t.app.inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(acct.testKey), payload: { order_id: 'full-server', amount_usd: '25.00', token: 'ETH' } })
      .finally(() => { settled = true; });
    await vi.waitFor(() => expect(settled || (pool.refusals ?? 0) > 0).toBe(true), { timeout: 10_000 });
    // One connection comes free (another request of this process finished).
    held.pop()!.release();
    const res = await creating;
    expect(res.statusCode, res.body).toBe(201);
    expect(await asAdmin(`select 1 from payments where order_id = 'full-server'`, scratch.url)).toBe(1);
  });
});

it('answers 503 with Retry-After, storing nothing, when the server stays full for longer than the pool waits', async () => {
  await withFullServer(300, async ({ t, acct, pool }) => {
    // Nothing comes free: the creation waits 300 ms for a connection, then is told to come back.
    const res = await t.app.inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(acct.testKey), payload: { order_id: 'full-server-busy', amount_usd: '25.00', token: 'ETH' } });
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toEqual({ error: 'the service is busy: try again in a few seconds' });
    expect(res.headers['retry-after']).toBe('5');
    expect(pool.refusals).toBeGreaterThan(0);
    expect(await asAdmin(`select 1 from payments where order_id = 'full-server-busy'`, scratch.url)).toBe(0);
  });
});
