// Payments HTTP benchmark (autocannon, 50 connections, in process) on PGlite and on a fresh
// PostgreSQL database, each against a bare Fastify baseline on the same pool:
//   1. POST /v1/payments with a coin  vs  a bare route doing one INSERT (target ratio ≥ 0.5, p99 < 25 ms)
//   2. GET /checkout/{token}          vs  a bare route doing one SELECT by key (target ratio ≥ 0.7)
//   3. POST /v1/payments with an Idempotency-Key (a new one each request) vs without: the key's cost
// Each side is warmed up first (BENCH_WARMUP_SECONDS, default 3), then the two are measured in
// alternating halves of BENCH_SECONDS (default 8): service, bare, bare, service.
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
/** Each side is warmed up with the same requests first, so the JIT's first seconds count for neither side. */
const WARMUP_S = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);

interface Run { rps: number; p50: number; p99: number; errors: number; non2xx: number; cpuUs: number }

interface Slice { requests: number; seconds: number; p50: number; p99: number; errors: number; non2xx: number; cpuUs: number }

async function slice(url: string, request: autocannon.Request, seconds: number): Promise<Slice> {
  const before = process.threadCpuUsage();
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, requests: [request] });
  const used = process.threadCpuUsage(before);
  return { requests: r.requests.total, seconds: r.duration, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx, cpuUs: used.user + used.system };
}

const total = (slices: Slice[]): Run => {
  const requests = slices.reduce((a, x) => a + x.requests, 0);
  return {
    rps: requests / slices.reduce((a, x) => a + x.seconds, 0),
    // The worst slice's p50 and p99: upper bounds of the side's own.
    p50: Math.max(...slices.map((x) => x.p50)),
    p99: Math.max(...slices.map((x) => x.p99)),
    errors: slices.reduce((a, x) => a + x.errors, 0),
    non2xx: slices.reduce((a, x) => a + x.non2xx, 0),
    // Main-thread CPU per request (service and in-process client together): steadier than req/s on a busy machine.
    cpuUs: slices.reduce((a, x) => a + x.cpuUs, 0) / Math.max(1, requests),
  };
};

/**
 * The service's route against its bare baseline in the same run: each warmed up first, then
 * measured in alternating halves (service, bare, bare, service), so a machine whose speed drifts
 * during the run (a shared VM's does, by 20% and more) weighs on both sides alike.
 */
async function pair(a: { url: string; request: autocannon.Request }, b: { url: string; request: autocannon.Request }): Promise<[Run, Run]> {
  if (WARMUP_S > 0) {
    await autocannon({ url: a.url, connections: CONNECTIONS, duration: WARMUP_S, requests: [a.request] });
    await autocannon({ url: b.url, connections: CONNECTIONS, duration: WARMUP_S, requests: [b.request] });
  }
  const half = DURATION_S / 2;
  const a1 = await slice(a.url, a.request, half);
  const b1 = await slice(b.url, b.request, half);
  const b2 = await slice(b.url, b.request, half);
  const a2 = await slice(a.url, a.request, half);
  return [total([a1, a2]), total([b1, b2])];
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
    const [created, baseline] = await pair({ url: base, request: createReq }, { url: bare, request: bareReq });

    const tokens = (await queryRows<{ checkout_token: string }>(db.orm, sql`select checkout_token from payments limit 2000`)).map((r) => r.checkout_token);
    let m = 0;
    const [read, bareRead] = await pair(
      { url: base, request: { method: 'GET', setupRequest: (req) => ({ ...req, path: `/checkout/${tokens[m++ % tokens.length]}` }) } },
      { url: bare, request: { method: 'GET', setupRequest: (req) => ({ ...req, path: `/bare/${tokens[m++ % tokens.length]}` }) } },
    );

    const line = (label: string, a: Run, b: Run, target: number) =>
      console.log(`${kind.padEnd(8)} ${label.padEnd(28)} ${a.rps.toFixed(0).padStart(6)} req/s p50 ${String(a.p50).padStart(3)} p99 ${String(a.p99).padStart(4)} ms (non-2xx ${a.non2xx}, errors ${a.errors}) | bare ${b.rps.toFixed(0).padStart(6)} req/s p50 ${String(b.p50).padStart(3)} p99 ${String(b.p99).padStart(4)} ms | ratio ${(a.rps / b.rps).toFixed(2)} (target ≥ ${target}) | main-thread CPU per request ${a.cpuUs.toFixed(0)} µs vs ${b.cpuUs.toFixed(0)} µs bare`);
    // The Idempotency-Key's cost: the same creation with a fresh key on each request (claimed, then
    // its answer sealed and stored before it is sent) against none.
    const withKey: autocannon.Request = {
      method: 'POST', path: '/v1/payments',
      setupRequest: (req) => {
        const i = n++;
        const orderId = `bench-${i}-${crypto.randomBytes(3).toString('hex')}`;
        return { ...req, headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[i % keys.length]}`, 'idempotency-key': orderId }, body: JSON.stringify({ order_id: orderId, amount_usd: '25.00', token: 'ETH' }) };
      },
    };
    const [keyed, unkeyed] = await pair({ url: base, request: withKey }, { url: base, request: createReq });

    line('POST /v1/payments (ETH)', created, baseline, 0.5);
    line('GET /checkout/{token}', read, bareRead, 0.7);
    console.log(`${kind.padEnd(8)} ${'Idempotency-Key cost'.padEnd(28)} with ${keyed.rps.toFixed(0)} req/s p50 ${keyed.p50} p99 ${keyed.p99} ms (non-2xx ${keyed.non2xx}) | without ${unkeyed.rps.toFixed(0)} req/s p50 ${unkeyed.p50} p99 ${unkeyed.p99} ms | ratio ${(keyed.rps / unkeyed.rps).toFixed(2)} | CPU per request ${keyed.cpuUs.toFixed(0)} µs vs ${unkeyed.cpuUs.toFixed(0)} µs`);
    await app.close();
    await stopWorkers(services);
  } finally {
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

for (const kind of (process.env.BENCH_ENGINES ?? "postgres,pglite").split(",") as ("postgres" | "pglite")[]) await benchEngine(kind);
process.exit(0);
