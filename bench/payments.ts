// Payments HTTP benchmark (autocannon, 50 connections, in process) on PGlite and on a fresh
// PostgreSQL database, each against a bare Fastify baseline on the same pool:
//   1. POST /v1/payments with a coin  vs  a bare route doing one INSERT (target ratio ≥ 0.5, p99 < 25 ms)
//   2. GET /checkout/{token}          vs  a bare route doing one SELECT by key (target ratio ≥ 0.7)
// Each run is preceded by a warm-up run (BENCH_WARMUP_SECONDS, default 3) of the same requests.
// The API-key limit (20 requests a second per key) stays as it is: the bench spreads the load over
// enough test keys of one merchant (each request takes the next key) that no key reaches it (400 keys: 8,000 a second).
// Run: node_modules/.bin/node bench/payments.ts   (TEST_DATABASE_URL for the server; default postgres://postgres@127.0.0.1:5432/test)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { bootPlatform } from '../src/platform/boot.ts';
import type { Database } from '../src/platform/db/index.ts';
import { openScratchDatabase } from '../test/harness/scratch-db.ts';
import { queryRows } from '../src/platform/db/index.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { startWorkers, stopWorkers } from '../src/workers.ts';
import { insertApiKey } from '../src/accounts/api-keys.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MARKET = path.resolve(HERE, '../test/fixtures/market.json');
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8);
const KEYS = 400;
/** Each measured run follows a warm-up run of the same requests, so the JIT's first seconds count for neither side. */
const WARMUP_S = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);

interface Run { rps: number; p99: number; errors: number; non2xx: number; cpuUs: number }

async function cannon(url: string, request: autocannon.Request): Promise<Run> {
  if (WARMUP_S > 0) await autocannon({ url, connections: CONNECTIONS, duration: WARMUP_S, requests: [request] });
  const before = process.threadCpuUsage();
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, requests: [request] });
  const used = process.threadCpuUsage(before);
  // Main-thread CPU per request (service and in-process client together): steadier than req/s on a busy machine.
  const cpuUs = (used.user + used.system) / Math.max(1, r.requests.total);
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx, cpuUs };
}

async function openDb(kind: 'pglite' | 'postgres'): Promise<{ db: Database; drop: () => Promise<void> }> {
  return openScratchDatabase(kind, { poolMax: 20, prefix: 'gw_bench' });
}

/** The baseline: the same Fastify and JSON handling, one INSERT or one SELECT through the same pool. */
async function bareServer(db: Database): Promise<string> {
  await db.orm.execute(sql`create table if not exists bench_bare (id text primary key, order_id text, amount text, created_at timestamptz)`);
  const app = Fastify();
  app.post('/bare', async (req, reply) => {
    const b = req.body as { order_id: string; amount_usd: string };
    const id = crypto.randomBytes(12).toString('hex');
    const [row] = await queryRows(db.orm, sql`insert into bench_bare (id, order_id, amount, created_at) values (${id}, ${b.order_id}, ${b.amount_usd}, now()) returning *`);
    return reply.code(201).send(row);
  });
  app.get('/bare/:token', async (req) => {
    const [row] = await queryRows(db.orm, sql`select * from payments where checkout_token = ${(req.params as { token: string }).token}`);
    return row;
  });
  return app.listen({ port: 0, host: '127.0.0.1' });
}

async function benchEngine(kind: 'pglite' | 'postgres'): Promise<void> {
  const { db, drop } = await openDb(kind);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, AUTH_SECRET: 'bench-auth-secret-bench-auth-secret-0123', WALLET_MNEMONIC: MNEMONIC, MARKET_FILE: MARKET, LOG_LEVEL: 'silent', PORT: '0' });
    const platform = await bootPlatform(config, createLogger('silent'), { db, jobs: false });
    const services = await createServices(platform);
    const app = await buildApp(services);
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    // The service as `npm start` runs it: the outbox hands every payment's events on while the load runs.
    await startWorkers(services);
    const bare = await bareServer(db);

    const now = new Date();
    const account = await services.accounts.signup({ merchant_name: 'Bench', email: `bench-${Date.now()}@example.com`, password: 'bench-password-1' });
    const keys: string[] = [account.keys.find((k) => !k.row.livemode)!.secret];
    for (let i = keys.length; i < KEYS; i++) keys.push((await insertApiKey(db.orm, { merchantId: account.merchant.id, livemode: false, label: `bench-${i}`, access: 'full', createdBy: null, at: now })).secret);

    let n = 0;
    const createReq: autocannon.Request = {
      method: 'POST', path: '/v1/payments',
      setupRequest: (req) => {
        const i = n++;
        return { ...req, headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[i % keys.length]}` }, body: JSON.stringify({ order_id: `bench-${i}-${crypto.randomBytes(3).toString('hex')}`, amount_usd: '25.00', token: 'ETH' }) };
      },
    };
    const bareReq: autocannon.Request = {
      method: 'POST', path: '/bare',
      setupRequest: (req) => ({ ...req, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ order_id: `bare-${n++}`, amount_usd: '25.00', token: 'ETH' }) }),
    };
    const created = await cannon(base, createReq);
    const baseline = await cannon(bare, bareReq);

    const tokens = (await queryRows<{ checkout_token: string }>(db.orm, sql`select checkout_token from payments limit 2000`)).map((r) => r.checkout_token);
    let m = 0;
    const read = await cannon(base, { method: 'GET', setupRequest: (req) => ({ ...req, path: `/checkout/${tokens[m++ % tokens.length]}` }) });
    const bareRead = await cannon(bare, { method: 'GET', setupRequest: (req) => ({ ...req, path: `/bare/${tokens[m++ % tokens.length]}` }) });

    const line = (label: string, a: Run, b: Run, target: number) =>
      console.log(`${kind.padEnd(8)} ${label.padEnd(28)} ${a.rps.toFixed(0).padStart(6)} req/s p99 ${String(a.p99).padStart(4)} ms (non-2xx ${a.non2xx}, errors ${a.errors}) | bare ${b.rps.toFixed(0).padStart(6)} req/s p99 ${String(b.p99).padStart(4)} ms | ratio ${(a.rps / b.rps).toFixed(2)} (target ≥ ${target}) | main-thread CPU per request ${a.cpuUs.toFixed(0)} µs vs ${b.cpuUs.toFixed(0)} µs bare`);
    line('POST /v1/payments (ETH)', created, baseline, 0.5);
    line('GET /checkout/{token}', read, bareRead, 0.7);
    await app.close();
    await stopWorkers(services);
  } finally {
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

for (const kind of (process.env.BENCH_ENGINES ?? "postgres,pglite").split(",") as ("postgres" | "pglite")[]) await benchEngine(kind);
process.exit(0);
