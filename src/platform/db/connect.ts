// Opens the database the configuration names: a PostgreSQL server, or PGlite in DATA_DIR.
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { Database, type Orm } from './database.ts';
import { ChangeReports } from './change-reports.ts';

/**
 * Connections per process on a PostgreSQL server. Payment creation and the test ping each keep up to
 * eight of them writing at once (grouped-statements.ts requestGroupsInFlight), tuned on 2 cores with
 * 50 client connections; four processes stay within PostgreSQL's default max_connections of 100.
 */
export const POSTGRES_POOL_MAX = 20;

/**
 * How long a pooled connection may sit idle before it is closed: not pg's default of 10 s. A new
 * connection costs a server process, authentication and a fresh plan of every named statement
 * (payment creation's, the test ping's), and after a quiet 10 s the next burst paid all of that at
 * once: measured with 50 clients after 10 s of idle, the first 50 creations took 84 ms on average
 * against 23–52 ms with the connections kept. The pool never holds more than POSTGRES_POOL_MAX.
 */
export const POOL_IDLE_MS = 5 * 60_000;

export async function openPostgres(url: string, opts: { max?: number; patienceMs?: number } = {}): Promise<Database> {
  // Waits out a server that is full (other processes hold every connection) rather than failing the query.
  const { PatientPool } = await import('./patient-pool.ts');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  // The changes this process makes, as the database reports them to each connection (change-reports.ts).
  const reports = new ChangeReports((channel, payload) => db.reported(channel, payload));
  const pool = new PatientPool({ connectionString: url, max: opts.max ?? POSTGRES_POOL_MAX, idleTimeoutMillis: POOL_IDLE_MS, patienceMs: opts.patienceMs, onConnect: (client) => reports.prepare(client) });
  reports.follow(pool);
  // An idle connection dropped by the server must not crash the process.
  pool.on('error', () => {});
  const orm = drizzle(pool) as unknown as Orm;
  const db: Database = new Database({ kind: 'postgres', orm, pool, url, close: () => pool.end() });
  return db;
}

/**
 * Not PostgreSQL's default of 128 MB shared buffers: PGlite's WebAssembly build touches all of its
 * shared memory at start, so all of it stays resident (~120 MB of an idle service). 16 MB holds this
 * service's hot tables and indexes; an evicted page is read back from the files (OS page cache).
 * Nor its 100 connections: PGlite runs a single backend, and the lock tables and process slots
 * sized for 100 took 3 MB more of that shared memory (5: above the 3 reserved for superusers).
 * The `-c` settings override postgresql.conf in DATA_DIR without rewriting it.
 */
const PGLITE_SETTINGS = ['shared_buffers=16MB', 'max_connections=5'];

/**
 * On PGlite, WebAssembly stays on V8's baseline compiler (Liftoff): its optimising compiler needs
 * ~600 MB for one function of PGlite (PostgreSQL's SQL parser) a few seconds after start, and the
 * allocator keeps ~40 MB of it. Set here, at run time, rather than as `--liftoff-only` in the start
 * script, so that on a PostgreSQL server the other WebAssembly of the process (libsecp256k1, which
 * derives deposit addresses) keeps its optimised code: it is ~4× slower on baseline code. V8 reads
 * these two flags when it decides a tier-up, so setting them before PGlite starts is enough.
 */
function keepWebAssemblyOnBaselineCode(): void {
  v8.setFlagsFromString('--no-wasm-dynamic-tiering');
  v8.setFlagsFromString('--no-wasm-tier-up');
}

/**
 * PGlite in `dir` (persistent), or in memory when dir is null (tests). `loadDataDir` starts it from a
 * data directory dumped earlier (`dumpDataDir`) instead of running initdb: the tests' migrated
 * snapshot (test/harness/pglite-snapshot.ts).
 */
export async function openPglite(dir: string | null, opts: { loadDataDir?: Blob } = {}): Promise<Database> {
  keepWebAssemblyOnBaselineCode();
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  if (dir) fs.mkdirSync(dir, { recursive: true });
  const startParams = [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((s) => ['-c', s])];
  const client = await PGlite.create(dir ?? undefined, { startParams, loadDataDir: opts.loadDataDir });
  const orm = drizzle(client) as unknown as Orm;
  return new Database({ kind: 'pglite', orm, pglite: client, close: () => client.close() });
}

export function openDatabase(cfg: { databaseUrl: string | null; dataDir: string }): Promise<Database> {
  return cfg.databaseUrl ? openPostgres(cfg.databaseUrl) : openPglite(path.join(cfg.dataDir, 'pglite'));
}
