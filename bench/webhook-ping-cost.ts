// Where the CPU of POST /v1/webhook/test goes (issue 17): the service as bench/payments.ts runs it,
// pinged for PING_SECONDS (default 8) from the load process against a closed local port, then until
// every ping had its first attempt. Prints per ping: the service's CPU, the CPU of this database's
// PostgreSQL backends, commits, tuple writes per table and statements by their first words; CPU per
// ping moves less than req/s on a shared machine. WORKER=off stops the delivery worker (the request
// alone). Run: node_modules/.bin/node bench/webhook-ping-cost.ts
import './_as-npm-start.ts';
import './_interrupt.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { bootPlatform } from '../src/platform/boot.ts';
import { openScratchDatabase } from '../test/harness/scratch-db.ts';
import { queryRows } from '../src/platform/db/index.ts';
import { POSTGRES_POOL_MAX } from '../src/platform/db/connect.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { startWorkers, stopWorkers } from '../src/workers.ts';
import { insertApiKey } from '../src/accounts/api-keys.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MARKET = path.resolve(HERE, '../test/fixtures/market.json');
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const SECONDS = Number(process.env.PING_SECONDS ?? 8);
const run = promisify(execFile);

// statements by their first words
const counts = new Map<string, number>();
let countOn = false;
type Query = (this: pg.Client, ...args: unknown[]) => unknown;
const origQuery = pg.Client.prototype.query as unknown as Query;
(pg.Client.prototype as unknown as { query: Query }).query = function (this: pg.Client, ...args: unknown[]) {
  if (countOn) {
    const q = args[0] as string | { text?: string } | undefined;
    const text = typeof q === 'string' ? q : (q?.text ?? '');
    const k = text.replace(/\s+/g, ' ').trim().slice(0, 70);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return origQuery.apply(this, args);
};

const { db, url: dbUrl, drop } = await openScratchDatabase('postgres', { poolMax: POSTGRES_POOL_MAX, prefix: 'gw_pingcost' });
const dbName = new URL(dbUrl!).pathname.slice(1);
const admin = new pg.Client({ connectionString: dbUrl! });
await admin.connect();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-pingcost-'));
const TICK = 100;
function procCpu(pid: number): number | null {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 1000 / TICK;
  } catch { return null; }
}
try {
  const config = loadConfig({ DATA_DIR: dataDir, AUTH_SECRET: 'bench-auth-secret-bench-auth-secret-0123', WALLET_MNEMONIC: MNEMONIC, MARKET_FILE: MARKET, LOG_LEVEL: 'silent', PORT: '0', WEBHOOK_ALLOW_PRIVATE: '1' });
  const platform = await bootPlatform(config, createLogger('silent'), { db });
  const services = await createServices(platform);
  const app = await buildApp(services);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  await startWorkers(services);
  if (process.env.WORKER === 'off') await services.webhooks.stop();
  const account = await services.accounts.signup({ merchant_name: 'Bench', email: `bench-${Date.now()}@example.com`, password: 'bench-password-1' }, {});
  const keys: string[] = [account.keys.find((k) => !k.row.livemode)!.secret];
  for (let i = keys.length; i < 400; i++) keys.push((await insertApiKey(db.orm, { merchantId: account.merchant.id, livemode: false, label: `b-${i}`, access: 'full', createdBy: null, at: new Date() })).secret);
  const hook = await app.inject({ method: 'PUT', url: '/v1/webhook', headers: { authorization: `Bearer ${keys[0]}` }, payload: { url: 'http://127.0.0.1:9/hook' } });
  if (hook.statusCode !== 200) throw new Error(`webhook: ${hook.statusCode} ${hook.body}`);
  await new Promise((r) => setTimeout(r, 1500));

  const stat = async () => {
    const [d] = (await admin.query(`select xact_commit::int c, xact_rollback::int r, tup_inserted::int i, tup_updated::int u, tup_deleted::int d from pg_stat_database where datname = $1`, [dbName])).rows;
    const t = (await admin.query(`select relname, n_tup_ins::int ins, n_tup_upd::int upd, n_tup_hot_upd::int hot, n_tup_del::int del from pg_stat_user_tables where relname in ('deliveries','events','outbox_pending','notifications')`)).rows;
    const wal = (await admin.query(`select pg_current_wal_lsn() l`)).rows[0].l as string;
    return { d, t, wal };
  };
  // backend CPU: sampled so a connection that closes meanwhile still counts up to its last sample
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const sample = async () => {
    const pids = (await admin.query(`select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [dbName])).rows.map((r) => r.pid as number);
    for (const pid of pids) {
      const c = procCpu(pid);
      if (c === null) continue;
      if (!first.has(pid)) first.set(pid, sampling ? 0 : c);
      last.set(pid, c);
    }
  };
  let sampling = false;
  await sample();
  sampling = true;
  const timer = setInterval(() => void sample(), 200);
  const s0 = await stat();
  const c0 = process.cpuUsage();
  countOn = true;
  const t0 = performance.now();
  const jobFile = path.join(dataDir, 'job.json');
  fs.writeFileSync(jobFile, JSON.stringify({ url: base, kind: 'webhook-test', keys, seconds: SECONDS }));
  const { stdout } = await run(process.execPath, [path.join(HERE, '_load.ts'), jobFile], { maxBuffer: 1 << 20 });
  const load = JSON.parse(stdout.trim().split('\n').pop()!);
  const tLoad = performance.now() - t0;
  const cLoad = process.cpuUsage(c0);
  // until every ping had its first attempt
  if (process.env.WORKER !== 'off') {
    for (;;) {
      const [r] = await queryRows<{ n: number }>(db.orm, sql`select count(*)::int n from deliveries where attempts = 0 or status = 'sending'`);
      if (r.n === 0) break;
      await new Promise((res) => setTimeout(res, 50));
    }
  }
  const tAll = performance.now() - t0;
  const cAll = process.cpuUsage(c0);
  countOn = false;
  await new Promise((r) => setTimeout(r, 1200));
  await sample();
  clearInterval(timer);
  const s1 = await stat();
  const n = load.requests as number;
  let pgCpu = 0;
  for (const [pid, c] of last) pgCpu += c - (first.get(pid) ?? c);
  const per = (x: number) => (x / n).toFixed(3);
  console.log(`pings ${n} in ${(tLoad / 1000).toFixed(1)} s = ${(n / tLoad * 1000).toFixed(0)}/s (p50 ${load.p50} p99 ${load.p99}); all attempted after ${(tAll / 1000).toFixed(1)} s`);
  console.log(`service CPU ms/ping: during load ${per((cLoad.user + cLoad.system) / 1000)}, total ${per((cAll.user + cAll.system) / 1000)}; pg backends CPU ms/ping ${per(pgCpu)} (${last.size} backends)`);
  console.log(`commits/ping ${per(s1.d.c - s0.d.c)} rollbacks ${s1.d.r - s0.d.r} ins/ping ${per(s1.d.i - s0.d.i)} upd/ping ${per(s1.d.u - s0.d.u)} del/ping ${per(s1.d.d - s0.d.d)}`);
  for (const a of s1.t) {
    const b = s0.t.find((x: { relname: string }) => x.relname === a.relname) ?? { ins: 0, upd: 0, hot: 0, del: 0 };
    console.log(`  ${a.relname.padEnd(16)} ins ${per(a.ins - b.ins)} upd ${per(a.upd - b.upd)} hot ${per(a.hot - b.hot)} del ${per(a.del - b.del)}`);
  }
  const walBytes = (await admin.query(`select pg_wal_lsn_diff($1, $2)::bigint b`, [s1.wal, s0.wal])).rows[0].b;
  console.log(`WAL bytes/ping (whole server, noisy) ${(Number(walBytes) / n).toFixed(0)}`);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  console.log(`statements/ping ${per(total)}`);
  for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${per(v).padStart(7)}  ${k}`);
  await app.close();
  await stopWorkers(services);
} finally {
  await admin.end();
  await drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
