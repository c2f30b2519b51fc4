// Payments HTTP benchmark, measured the way an outside benchmark does (issue 17). Three processes:
// the service (this one, as `npm start` runs it, workers included), the baseline (bench/_bare-baseline.ts:
// bare Fastify 5, pg Pool of 20, one 5-column row by primary key) and the load (bench/_load.ts:
// autocannon, 50 connections), all on one fresh PostgreSQL database. Targets:
//   1. GET /checkout/{token}   ≥ 0.7 of the bare SELECT
//   2. POST /v1/payments       ≥ 0.5 of the bare INSERT, p99 ≤ 1.5 × the bare INSERT's p99
//   3. POST /v1/webhook/test   ≥ 0.5 of the bare INSERT
// and the Idempotency-Key's cost: POST /v1/payments with a fresh key on each request against none;
// and live mode (issue 13): POST /v1/payments of live ETH payments (ETHEREUM_RPC_URL an anvil node,
// the chain watcher running) against the same bare INSERT, no worse than test mode's ratio.
// Each side is warmed up (BENCH_WARMUP_SECONDS, default 3), then measured for BENCH_SECONDS (default
// 10) in alternating halves: service, bare, bare, service, so a machine whose speed drifts weighs on
// both alike; a side's p50 and p99 are those of its two halves' answers taken together (what one run
// of the whole length reports), and each half's own p99 is printed under the creation pair.
// The API-key limit (20 a second per key) stays: the load spreads over 400 test keys.
// The service's process runs with the Node flags and the pool size `npm start` gives it on PostgreSQL.
// Under each pair, the CPU a request cost on each side, by process (and the service's by thread:
// event loop, V8's helper threads, the address worker), from Linux's /proc (bench/_cpu-split.ts):
// on a machine shared with other work, these move far less than req/s, and their quotient is the
// ratio the pair would show where CPU is what limits both sides.
// Run: node_modules/.bin/node bench/payments.ts   (TEST_DATABASE_URL for the server; BENCH_ONLY to
// run fewer pairs, e.g. BENCH_ONLY=webhook: the creation pair always runs)
import './_as-npm-start.ts';
import './_interrupt.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { eq, sql } from 'drizzle-orm';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { bootPlatform } from '../src/platform/boot.ts';
import { PING } from '../src/webhooks/routing.ts';
import { openScratchDatabase } from '../test/harness/scratch-db.ts';
import { queryRows } from '../src/platform/db/index.ts';
import { POSTGRES_POOL_MAX } from '../src/platform/db/connect.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { startWorkers, stopWorkers } from '../src/workers.ts';
import { insertApiKey } from '../src/accounts/api-keys.ts';
import { merchants } from '../src/accounts/schema.ts';
import { startAnvil } from '../test/harness/anvil.ts';
import { holdProcess } from '../test/harness/held-outside.ts';
import { addSplits, cpuProbe, perRequest, waitedPerRequest, type CpuProbe, type CpuSplit } from './_cpu-split.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MARKET = path.resolve(HERE, '../test/fixtures/market.json');
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const KEYS = 400;
/** The service's log level (BENCH_LOG_LEVEL, e.g. warn to see why answers failed under load). */
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'silent';
/** BENCH_ONLY=checkout,webhook,keyed,live picks the pairs after the creation pair (default: all). */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : null;
const chosen = (name: string) => ONLY === null || ONLY.has(name);
const run = promisify(execFile);

interface Slice { requests: number; seconds: number; p50: number; p99: number; errors: number; non2xx: number; cpu_ms?: number; cpu?: CpuSplit; statuses?: Record<string, number>; samples?: Record<string, string[]>; latency: Record<string, number> }
/** p50 and p99 over both halves of a side; `p99Halves`: each half's own p99, as autocannon gave it. */
interface Side { rps: number; p50: number; p99: number; p99Halves: number[]; errors: number; non2xx: number; requests: number; cpu: CpuSplit }

/**
 * Percentiles (ms) of the halves' answers taken together, from their latencies counted by tenth of
 * a millisecond (bench/_load.ts): what one run as long as both would report; 0 with no answers.
 */
function mergedPercentiles(slices: Slice[], qs: number[]): number[] {
  const counts = new Map<number, number>();
  for (const x of slices) for (const [k, n] of Object.entries(x.latency)) counts.set(Number(k), (counts.get(Number(k)) ?? 0) + n);
  const sorted = [...counts].sort((a, b) => a[0] - b[0]);
  const all = sorted.reduce((a, [, n]) => a + n, 0);
  return qs.map((q) => {
    // the least latency with at least q of the answers at or below it
    let seen = 0;
    for (const [tenth, n] of sorted) {
      seen += n;
      if (seen >= q * all) return Math.round(tenth / 10);
    }
    return 0;
  });
}
interface Job { url: string; kind: string; keys?: string[]; tokens?: string[] }

const jobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-load-'));
let jobs = 0;
/** How each side's CPU is read (set once the baseline and the database are up). */
let probes: { service: CpuProbe; bare: CpuProbe } | undefined;
/** One autocannon run in the load process, with the CPU it cost where it went. */
async function load(job: Job, seconds: number): Promise<Slice> {
  const file = path.join(jobDir, `job-${jobs++}.json`);
  fs.writeFileSync(file, JSON.stringify({ ...job, seconds }));
  const counting = probes?.[job.kind.startsWith('bare') ? 'bare' : 'service'].start();
  const { stdout } = await run(process.execPath, [path.join(HERE, '_load.ts'), file], { maxBuffer: 1 << 20 });
  const slice = JSON.parse(stdout.trim().split('\n').pop()!) as Slice;
  if (counting) slice.cpu = counting.end(slice.cpu_ms);
  // which answers they were, not just how many (the summary line only counts them)
  if (slice.non2xx > 0) console.error(`${job.kind} non-2xx: ${JSON.stringify(slice.statuses)} e.g. ${JSON.stringify(slice.samples)}`);
  return slice;
}

function total(s: Slice[]): Side {
  const [p50, p99] = mergedPercentiles(s, [0.5, 0.99]);
  return {
    rps: s.reduce((a, x) => a + x.requests, 0) / s.reduce((a, x) => a + x.seconds, 0),
    p50, p99,
    p99Halves: s.map((x) => x.p99),
    errors: s.reduce((a, x) => a + x.errors, 0), non2xx: s.reduce((a, x) => a + x.non2xx, 0),
    requests: s.reduce((a, x) => a + x.requests, 0), cpu: addSplits(s.map((x) => x.cpu ?? new Map())),
  };
}

async function pair(service: Job, bare: Job): Promise<[Side, Side]> {
  if (WARMUP_S > 0) { await load(service, WARMUP_S); await load(bare, WARMUP_S); }
  const half = DURATION_S / 2;
  const a1 = await load(service, half);
  const b1 = await load(bare, half);
  const b2 = await load(bare, half);
  const a2 = await load(service, half);
  return [total([a1, a2]), total([b1, b2])];
}

async function startBaseline(dbUrl: string): Promise<{ url: string; pid: number | undefined; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [path.join(HERE, '_bare-baseline.ts'), dbUrl], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => { out += d; const m = /listening (\S+)/.exec(out); if (m) resolve(m[1]); });
    child.on('exit', (code) => reject(new Error(`baseline exited ${code}`)));
  });
  return { url, pid: child.pid, stop: holdProcess(child) };
}

const { db, url: dbUrl, drop } = await openScratchDatabase('postgres', { poolMax: POSTGRES_POOL_MAX, prefix: 'gw_bench' });
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
const baseline = await startBaseline(dbUrl!);
// live ETH payments need an Ethereum node: anvil (chain id 1)
const eth = await startAnvil({ chainId: 1 });
try {
  const config = loadConfig({ DATA_DIR: dataDir, AUTH_SECRET: 'bench-auth-secret-bench-auth-secret-0123', WALLET_MNEMONIC: MNEMONIC, MARKET_FILE: MARKET, LOG_LEVEL: LOG_LEVEL, PORT: '0', WEBHOOK_ALLOW_PRIVATE: '1', ETHEREUM_RPC_URL: eth.url });
  const platform = await bootPlatform(config, createLogger(LOG_LEVEL), { db });
  const database = new URL(dbUrl!).pathname.slice(1);
  probes = { service: cpuProbe({ database, barePid: baseline.pid, side: 'service' }), bare: cpuProbe({ database, barePid: baseline.pid, side: 'bare' }) };
  const services = await createServices(platform);
  const app = await buildApp(services);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  await startWorkers(services);

  const account = await services.accounts.signup({ merchant_name: 'Bench', email: `bench-${Date.now()}@example.com`, password: 'bench-password-1' }, {});
  const keys: string[] = [account.keys.find((k) => !k.row.livemode)!.secret];
  for (let i = keys.length; i < KEYS; i++) keys.push((await insertApiKey(db.orm, { merchantId: account.merchant.id, livemode: false, label: `bench-${i}`, access: 'full', createdBy: null, at: new Date() })).secret);
  // Pings go to a closed local port: each attempt fails fast and is scheduled again much later.
  const hook = await app.inject({ method: 'PUT', url: '/v1/webhook', headers: { authorization: `Bearer ${keys[0]}` }, payload: { url: 'http://127.0.0.1:9/hook' } });
  if (hook.statusCode !== 200) throw new Error(`webhook: ${hook.statusCode} ${hook.body}`);

  const line = (label: string, a: Side, b: Side, target: number, extra = '') => {
    const ratio = a.rps / b.rps;
    console.log(`${label.padEnd(24)} ${a.rps.toFixed(0).padStart(6)} req/s p50 ${String(a.p50).padStart(3)} p99 ${String(a.p99).padStart(4)} ms (non-2xx ${a.non2xx}, errors ${a.errors}) | bare ${b.rps.toFixed(0).padStart(6)} req/s p50 ${String(b.p50).padStart(3)} p99 ${String(b.p99).padStart(4)} ms | ratio ${ratio.toFixed(2)} (target ≥ ${target}) ${ratio >= target ? 'ok' : 'BELOW'}${extra}`);
    cpuLine(a, b);
  };
  // CPU ms per request on each side; their quotient is the ratio a machine with nothing else running would show if CPU is what limits both.
  const cpuLine = (a: Side, b: Side, names = ['service', 'bare']) => {
    const x = perRequest(a.cpu, a.requests);
    const y = perRequest(b.cpu, b.requests);
    if (x.total > 0 && y.total > 0) console.log(`${''.padEnd(24)} CPU ms a request: ${names[0]}: ${x.text} | ${names[1]}: ${y.text} | CPU-bound ratio ${(y.total / x.total).toFixed(2)}`);
    // Not CPU: how long each event loop, with work to do, waited in the run queue for a core.
    console.log(`${''.padEnd(24)} event loop waited for a core, ms a request: ${names[0]} ${waitedPerRequest(a.cpu, a.requests)} | ${names[1]} ${waitedPerRequest(b.cpu, b.requests)}`);
  };
  // Latencies are whole milliseconds: a 0 ms divisor counts as 1.
  const over = (x: number, y: number) => x / Math.max(1, y);
  const p99Of = (a: Side, b: Side) => over(a.p99, b.p99);

  // create runs first whatever is chosen: the checkout pair reads the payments it made.
  const [created, bareInsert] = await pair({ url: base, kind: 'create', keys }, { url: baseline.url, kind: 'bare-insert' });
  line('POST /v1/payments', created, bareInsert, 0.5, ` | p99 ratio ${p99Of(created, bareInsert).toFixed(2)} (target ≤ 1.5) ${p99Of(created, bareInsert) <= 1.5 ? 'ok' : 'ABOVE'}`);
  console.log(`${''.padEnd(24)} p99 of each half (ms): service ${created.p99Halves.join(' / ')} | bare ${bareInsert.p99Halves.join(' / ')}`);
  // The p99 ratio is the medians' ratio times the ratio of the spreads (p99 ÷ p50). With a fixed
  // number of connections and no pause, a side's median follows from its throughput, so this line
  // says whether a p99 above target comes from the throughput or from a wider tail.
  const spread = (s: Side) => over(s.p99, s.p50);
  console.log(`${''.padEnd(24)} p99 ratio = p50 ratio ${over(created.p50, bareInsert.p50).toFixed(2)} × spread ratio ${(spread(created) / spread(bareInsert)).toFixed(2)} (p99 ÷ p50: service ${spread(created).toFixed(2)}, bare ${spread(bareInsert).toFixed(2)})`);
  if (chosen('checkout')) {
    const tokens = (await queryRows<{ checkout_token: string }>(db.orm, sql`select checkout_token from payments limit 2000`)).map((r) => r.checkout_token);
    const [read, bareSelect] = await pair({ url: base, kind: 'checkout', tokens }, { url: baseline.url, kind: 'bare-select' });
    line('GET /checkout/{token}', read, bareSelect, 0.7);
  }
  if (chosen('webhook')) {
    const [pinged, bareInsert2] = await pair({ url: base, kind: 'webhook-test', keys }, { url: baseline.url, kind: 'bare-insert' });
    line('POST /v1/webhook/test', pinged, bareInsert2, 0.5);
    // Every ping failed at the closed port and is due again a minute later: tens of thousands of
    // retries that would land in the pairs measured next. Each pair measures its own route.
    await db.orm.execute(sql`delete from deliveries where event_type = ${PING}`);
  }
  if (chosen('keyed')) {
    const [keyed, unkeyed] = await pair({ url: base, kind: 'create-keyed', keys }, { url: base, kind: 'create', keys });
    console.log(`${'Idempotency-Key cost'.padEnd(24)} with ${keyed.rps.toFixed(0)} req/s p50 ${keyed.p50} p99 ${keyed.p99} ms (non-2xx ${keyed.non2xx}) | without ${unkeyed.rps.toFixed(0)} req/s p50 ${unkeyed.p50} p99 ${unkeyed.p99} ms | ratio ${(keyed.rps / unkeyed.rps).toFixed(2)}`);
    cpuLine(keyed, unkeyed, ['with', 'without']);
  }
  if (chosen('live')) {
    // live mode: the same creation with live keys, against its own bare INSERT measured alongside
    await db.orm.update(merchants).set({ liveEnabled: true }).where(eq(merchants.id, account.merchant.id));
    const liveKeys: string[] = [];
    for (let i = 0; i < KEYS; i++) liveKeys.push((await insertApiKey(db.orm, { merchantId: account.merchant.id, livemode: true, label: `bench-live-${i}`, access: 'full', createdBy: null, at: new Date() })).secret);
    const liveHook = await app.inject({ method: 'PUT', url: '/v1/webhook', headers: { authorization: `Bearer ${liveKeys[0]}` }, payload: { url: 'http://127.0.0.1:9/hook' } });
    if (liveHook.statusCode !== 200) throw new Error(`live webhook: ${liveHook.statusCode} ${liveHook.body}`);
    const [liveCreated, bareInsert3] = await pair({ url: base, kind: 'create', keys: liveKeys }, { url: baseline.url, kind: 'bare-insert' });
    // and test mode again, right after, so both modes see the machine alike
    const [testCreated, bareInsert4] = await pair({ url: base, kind: 'create', keys }, { url: baseline.url, kind: 'bare-insert' });
    line('POST /v1/payments live', liveCreated, bareInsert3, 0.5, ` | p99 ratio ${p99Of(liveCreated, bareInsert3).toFixed(2)}`);
    line('POST /v1/payments test', testCreated, bareInsert4, 0.5, ` | p99 ratio ${p99Of(testCreated, bareInsert4).toFixed(2)}`);
    const liveVsTest = (liveCreated.rps / bareInsert3.rps) / (testCreated.rps / bareInsert4.rps);
    console.log(`${'live vs test (ratios)'.padEnd(24)} ${liveVsTest.toFixed(2)} (target ≥ 1.00 within noise) ${liveVsTest >= 0.95 ? 'ok' : 'BELOW'}`);
  }
  await app.close();
  await stopWorkers(services);
} finally {
  await baseline.stop();
  await eth.close();
  await drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(jobDir, { recursive: true, force: true });
}
process.exit(0);
