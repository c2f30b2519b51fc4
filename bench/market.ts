// Live market bench (issue 15): POST /v1/payments in live mode (ETH) priced from the static market
// (MARKET_FILE) against the same priced from the live market while it refreshes in the background,
// in one run, on one database. Two copies of the service run side by side on that database; each
// is warmed up, then they are measured in alternating halves of BENCH_SECONDS (static, live, live,
// static), so a machine whose speed drifts weighs on both alike.
// The live copy asks local stand-ins of the five price APIs (test/harness/exchanges.ts, on a thread
// of their own) every BENCH_REFRESH_MS (default 1000: thirty times the default RATE_REFRESH_S, 23
// requests a refresh) while its halves run. BENCH_ROUNDS (default 2) repeats the alternation.
// Besides requests a second it prints the main thread's CPU per request, steadier on a busy machine.
// Target: live/static ≥ 0.95 in requests a second, ≤ 1.05 in CPU per request.
// Run: node_modules/.bin/node bench/market.ts   (BENCH_ENGINES=postgres,pglite; TEST_DATABASE_URL)
import './_interrupt.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { eq } from 'drizzle-orm';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { bootPlatform } from '../src/platform/boot.ts';
import type { Database } from '../src/platform/db/index.ts';
import { createServices, type Services } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { startWorkers, stopWorkers } from '../src/workers.ts';
import { insertApiKey } from '../src/accounts/api-keys.ts';
import { merchants } from '../src/accounts/index.ts';
import { openScratchDatabase } from '../test/harness/scratch-db.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MARKET_FILE = path.resolve(HERE, '../test/fixtures/market.json');
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const WARMUP_S = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
/** Enough live keys that none reaches the 20-a-second API key limit. */
const KEYS = 400;
const REFRESH_MS = Number(process.env.BENCH_REFRESH_MS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

interface Side { services: Services; url: string; close: () => Promise<void> }
interface Measured { requests: number; seconds: number; non2xx: number; errors: number; p50: number; p99: number; cpuUs: number }

async function startSide(db: Database, env: Record<string, string>): Promise<Side> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-market-'));
  const config = loadConfig({
    DATA_DIR: dataDir, AUTH_SECRET: 'bench-auth-secret-bench-auth-secret-0123', WALLET_MNEMONIC: MNEMONIC,
    LOG_LEVEL: 'silent', PORT: '0', ETHEREUM_RPC_URL: 'http://127.0.0.1:1', ...env,
  });
  const platform = await bootPlatform(config, createLogger('silent'), { db });
  const services = await createServices(platform);
  const app = await buildApp(services);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  await startWorkers(services);
  return {
    services, url,
    close: async () => { await app.close(); await stopWorkers(services); await services.payments.close(); fs.rmSync(dataDir, { recursive: true, force: true }); },
  };
}

async function liveKeys(side: Side, db: Database): Promise<string[]> {
  const account = await side.services.accounts.signup({ merchant_name: 'Bench', email: `bench-${Date.now()}@example.com`, password: 'bench-password-1' }, {});
  await db.orm.update(merchants).set({ liveEnabled: true }).where(eq(merchants.id, account.merchant.id));
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    keys.push((await insertApiKey(db.orm, { merchantId: account.merchant.id, livemode: true, label: `bench-${i}`, access: 'full', createdBy: null, at: new Date() })).secret);
  }
  return keys;
}

async function load(url: string, keys: string[], seconds: number): Promise<Measured> {
  let n = 0;
  const cpu = process.threadCpuUsage();
  const r = await autocannon({
    url, connections: CONNECTIONS, duration: seconds,
    requests: [{
      method: 'POST', path: '/v1/payments',
      setupRequest: (req) => {
        const i = n++;
        return { ...req, headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[i % keys.length]}` }, body: JSON.stringify({ order_id: `m-${i}-${crypto.randomBytes(3).toString('hex')}`, amount_usd: '25.00', token: 'ETH' }) };
      },
    }],
  });
  const used = process.threadCpuUsage(cpu);
  return { requests: r.requests.total, seconds: r.duration, non2xx: r.non2xx, errors: r.errors, p50: r.latency.p50, p99: r.latency.p99, cpuUs: used.user + used.system };
}

const sum = (halves: Measured[]) => ({
  rps: halves.reduce((a, h) => a + h.requests, 0) / halves.reduce((a, h) => a + h.seconds, 0),
  p50: Math.max(...halves.map((h) => h.p50)), p99: Math.max(...halves.map((h) => h.p99)),
  non2xx: halves.reduce((a, h) => a + h.non2xx, 0), errors: halves.reduce((a, h) => a + h.errors, 0),
  // Main-thread CPU per request (service, stand-ins and client together): steadier than req/s on a busy machine.
  cpuUs: halves.reduce((a, h) => a + h.cpuUs, 0) / Math.max(1, halves.reduce((a, h) => a + h.requests, 0)),
});

async function benchEngine(kind: 'pglite' | 'postgres'): Promise<void> {
  const { db, drop } = await openScratchDatabase(kind, { poolMax: 20, prefix: 'gw_bench' });
  const exchanges = new Worker(new URL('./_exchanges-worker.ts', import.meta.url));
  const [sourceEnv] = await once(exchanges, 'message') as [Record<string, string>];
  // RATE_REFRESH_S is left long: the refreshes are driven below, only while the live side is measured.
  const stat = await startSide(db, { MARKET_FILE });
  const live = await startSide(db, { ...sourceEnv, RATE_REFRESH_S: '3600', RATE_MAX_AGE_S: '3600' });
  try {
    const keys = await liveKeys(stat, db);
    await live.services.market.refresh();
    let refreshes = 0;
    const onLive = async <T>(run: () => Promise<T>): Promise<T> => {
      const timer = setInterval(() => { refreshes++; void live.services.market.refresh(); }, REFRESH_MS);
      try { return await run(); } finally { clearInterval(timer); }
    };
    if (WARMUP_S > 0) {
      await load(stat.url, keys, WARMUP_S);
      await onLive(() => load(live.url, keys, WARMUP_S));
    }
    refreshes = 0;
    const half = SECONDS / 2;
    const s: Measured[] = [];
    const l: Measured[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      s.push(await load(stat.url, keys, half));
      l.push(await onLive(() => load(live.url, keys, half)));
      l.push(await onLive(() => load(live.url, keys, half)));
      s.push(await load(stat.url, keys, half));
    }
    const st = sum(s);
    const lv = sum(l);
    const fmt = (x: ReturnType<typeof sum>) => `${x.rps.toFixed(0).padStart(5)} req/s p50 ${String(x.p50).padStart(3)} p99 ${String(x.p99).padStart(4)} ms, ${x.cpuUs.toFixed(0)} µs CPU/request (non-2xx ${x.non2xx}, errors ${x.errors})`;
    console.log(`${kind.padEnd(8)} POST /v1/payments live ETH | static market ${fmt(st)} | live market ${fmt(lv)} | live/static ${(lv.rps / st.rps).toFixed(2)} req/s, ${(lv.cpuUs / st.cpuUs).toFixed(2)} CPU/request (target ≥ 0.95 and ≤ 1.05) | ${refreshes} refreshes every ${REFRESH_MS} ms while measured`);
  } finally {
    await live.close();
    await stat.close();
    await exchanges.terminate();
    await drop();
  }
}

for (const kind of (process.env.BENCH_ENGINES ?? 'postgres,pglite').split(',') as ('postgres' | 'pglite')[]) await benchEngine(kind);
process.exit(0);
