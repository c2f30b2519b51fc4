// The migrated database every PostgreSQL test database is copied from. Creating an empty database
// and running the migrations took 1.5–2.3 s a file on the 2-core machines under the suite's load;
// `CREATE DATABASE … TEMPLATE` of an already migrated one 0.1–1.2 s. The template is named by the
// migrations' hash (a changed migration builds a new one) and shared by concurrent runs.
import crypto from 'node:crypto';
import pg from 'pg';
import { migrate, openPostgres } from '../../src/platform/db/index.ts';
import { migrationsKey, STALE_STARTING_POINT_MS } from './migrations-key.ts';

const PREFIX = 'gw_tpl_';
const DUPLICATE_DATABASE = '42P04';

async function withAdmin<T>(serverUrl: string, use: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try { return await use(c); } finally { await c.end(); }
}

const urlOf = (serverUrl: string, name: string): string => {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
};

async function build(serverUrl: string, name: string): Promise<void> {
  // Built under a name of its own, then renamed: a concurrent run never copies a half-migrated one.
  const building = `gw_tplbuild_${crypto.randomBytes(6).toString('hex')}`;
  await withAdmin(serverUrl, (c) => c.query(`create database ${building}`));
  const db = await openPostgres(urlOf(serverUrl, building), { max: 1 });
  try { await migrate(db); } finally { await db.close(); }
  await withAdmin(serverUrl, async (c) => {
    try {
      await c.query(`alter database ${building} rename to ${name}`);
    } catch (err) {
      await c.query(`drop database if exists ${building}`);
      if ((err as { code?: string }).code !== DUPLICATE_DATABASE) throw err;
      return; // another run built it first
    }
    // The time it was built, read by dropStale; a template lets any role with CREATEDB copy it.
    await c.query(`comment on database ${name} is '${Date.now()}'`);
    await c.query(`alter database ${name} is_template true`);
    await dropStale(c, name);
  });
}

async function dropStale(c: pg.Client, keep: string): Promise<void> {
  const { rows } = await c.query<{ name: string; built: string | null }>(
    `select datname as name, shobj_description(oid, 'pg_database') as built from pg_database where datname like 'gw\\_tpl\\_%' and datname <> $1`, [keep]);
  for (const { name, built } of rows) {
    if (Date.now() - Number(built ?? 0) < STALE_STARTING_POINT_MS) continue;
    await c.query(`alter database ${name} is_template false`).then(() => c.query(`drop database ${name}`)).catch(() => { /* in use: left for a later run */ });
  }
}

const templates = new Map<string, Promise<string>>();

/** The name of the migrated template database on `serverUrl` (built once, then found). */
export function migratedTemplate(serverUrl: string): Promise<string> {
  let found = templates.get(serverUrl);
  if (!found) {
    found = (async () => {
      const name = `${PREFIX}${migrationsKey()}`;
      const exists = await withAdmin(serverUrl, (c) => c.query('select 1 from pg_database where datname = $1', [name]));
      if (exists.rowCount === 0) await build(serverUrl, name);
      return name;
    })();
    templates.set(serverUrl, found);
  }
  return found;
}
