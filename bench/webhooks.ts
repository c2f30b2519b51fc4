// Webhook delivery on PostgreSQL (fresh database), receivers in a separate thread:
//  1. sustained deliveries per second through the whole path (outbox event -> routing subscriber ->
//     deliveries row -> claim -> signed POST -> state written and `webhook:delivery` announced per attempt) to a
//     receiver that answers 200 at once, against a bare loop of signed POSTs that keeps no state;
//  2. with 200 receivers hanging for the whole timeout, the time from an event's commit to the first
//     attempt reaching a healthy receiver (p50, p99).
// Run: TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node_modules/.bin/node bench/webhooks.ts
import './_interrupt.ts';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { Session } from 'node:inspector/promises';
import { count, eq, and, isNotNull } from 'drizzle-orm';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { systemClock } from '../src/platform/clock.ts';
import type { Database } from '../src/platform/db/index.ts';
import { openScratchDatabase, testServerUrl } from '../test/harness/scratch-db.ts';
import { appendEvent, OutboxDispatcher } from '../src/events/index.ts';
import { attemptDelivery, deliveries, WebhooksService } from '../src/webhooks/index.ts';
import type { Platform } from '../src/platform/context.ts';
import { Timers } from '../src/platform/timers.ts';

const SERVER = testServerUrl();
const N = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const HANGING = 200;
const HANG_TIMEOUT_MS = Number(process.env.BENCH_HANG_TIMEOUT_MS ?? 10_000);
const BARE_CONCURRENCY = 32;
// How long the healthy receiver keeps an idle connection: Node's default 5 s; BENCH_RECEIVER_KEEP_ALIVE_MS=1 makes
// it close each at once (a receiver without keep-alive), as the bench did before connections were reused.
const RECEIVER_KEEP_ALIVE_MS = Number(process.env.BENCH_RECEIVER_KEEP_ALIVE_MS ?? 5000);

// ---- receivers (own thread, so they never compete with the worker's event loop) ----
const RECEIVERS = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
let count = 0;
const healthy = http.createServer({ keepAliveTimeout: workerData.keepAliveMs }, (req, res) => {
  req.resume();
  req.on('end', () => { count++; parentPort.postMessage({ t: 'got', at: Date.now(), id: req.headers['x-webhook-id'] }); res.writeHead(200).end('ok'); });
});
healthy.listen(0, '127.0.0.1', () => {
  const hanging = [];
  let ready = 0;
  for (let i = 0; i < workerData.hanging; i++) {
    const s = http.createServer((req) => { req.resume(); });
    s.listen(0, '127.0.1.' + (i + 1), () => {
      hanging.push('http://127.0.1.' + (i + 1) + ':' + s.address().port + '/hook');
      if (++ready === workerData.hanging) parentPort.postMessage({ t: 'ready', healthy: 'http://127.0.0.1:' + healthy.address().port + '/hook', hanging });
    });
  }
});
`;

interface Ready { healthy: string; hanging: string[] }
const receiverThread = new Worker(RECEIVERS, { eval: true, workerData: { hanging: HANGING, keepAliveMs: RECEIVER_KEEP_ALIVE_MS } });
const arrivals = new Map<string, number>();
let received = 0;
const ready = new Promise<Ready>((resolve) => {
  receiverThread.on('message', (m: { t: string; at: number; id: string } & Ready) => {
    if (m.t === 'ready') resolve(m);
    else { received++; if (!arrivals.has(m.id)) arrivals.set(m.id, m.at); }
  });
});

async function freshDatabase(): Promise<{ db: Database; drop: () => Promise<void> }> {
  return openScratchDatabase('postgres', { serverUrl: SERVER, poolMax: 20, prefix: 'gw_bench' });
}

function platformOn(db: Database, env: Record<string, string>): Platform {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
  const config = loadConfig({
    DATA_DIR: dataDir, AUTH_SECRET: 'bench-auth-secret-bench-auth-secret-0123', LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE: '1',
    WALLET_MNEMONIC: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about', ...env,
  });
  const log = createLogger('silent');
  return { config, db, clock: systemClock, log, timers: new Timers(db, systemClock, log), outbox: new OutboxDispatcher(db, log) };
}

const system = { kind: 'system' as const };
let routed = 0;
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

async function sustained(urls: Ready): Promise<number> {
  const { db, drop } = await freshDatabase();
  try {
    const platform = platformOn(db, {});
    const webhooks = new WebhooksService(platform);
    await webhooks.endpoints.setUrl('mer_bench', false, urls.healthy, system);
    for (let i = 0; i < N; i += 1000) {
      await db.transaction(async (tx) => {
        for (let j = i; j < Math.min(N, i + 1000); j++) {
          await appendEvent(tx, { type: 'payment.confirmed', livemode: false, merchantId: 'mer_bench', paymentId: `pay_${j}`, data: { id: `pay_${j}`, status: 'confirmed', usd_amount: '25.5' }, at: new Date() });
        }
      });
    }
    // Routing alone: every event becomes a queued delivery (one dispatch transaction per 200 events).
    const routeStart = performance.now();
    platform.outbox.subscribe(webhooks.subscriber);
    await platform.outbox.drainNow();
    routed = rate(N, performance.now() - routeStart);
    // Attempts: the worker drains the queue, announcing `webhook:delivery` as it records each (no outbox event).
    // BENCH_CPU_PROF=file.cpuprofile: a CPU profile of this phase alone.
    const profiler = process.env.BENCH_CPU_PROF ? new Session() : null;
    if (profiler) { profiler.connect(); await profiler.post('Profiler.enable'); await profiler.post('Profiler.start'); }
    const start = performance.now();
    const elu = performance.eventLoopUtilization();
    webhooks.worker.start();
    platform.outbox.start();
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(webhooks.worker.limiter.inFlight), 10);
    for (;;) {
      if (performance.now() - start > 300_000) throw new Error('deliveries did not finish within 5 minutes');
      const [r] = await db.orm.select({ n: count() }).from(deliveries).where(and(eq(deliveries.status, 'delivered'), isNotNull(deliveries.deliveredAt)));
      if (r.n >= N) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    const ms = performance.now() - start;
    clearInterval(sampler);
    if (profiler) fs.writeFileSync(process.env.BENCH_CPU_PROF!, JSON.stringify((await profiler.post('Profiler.stop')).profile));
    if (process.env.BENCH_DEBUG) console.log(`event loop busy ${(performance.eventLoopUtilization(elu).utilization * 100).toFixed(0)}%; attempts in flight: mean ${(samples.reduce((a, b) => a + b, 0) / samples.length).toFixed(1)}, max ${Math.max(...samples)}`);
    await platform.outbox.stop();
    await webhooks.stop();
    return rate(N, ms);
  } finally {
    await drop();
  }
}

async function bareLoop(url: string): Promise<number> {
  const total = Math.min(N, 10_000);
  let next = 0;
  const start = performance.now();
  const lane = async () => {
    while (next < total) {
      const i = next++;
      const r = await attemptDelivery({
        url, body: `{"created_at":"2026-01-01T00:00:00.000Z","data":{"id":"pay_${i}"},"id":"${i}","livemode":false,"type":"payment.confirmed"}`,
        secret: 'a'.repeat(64), deliveryId: `dlv_${i}`, eventType: 'payment.confirmed', attempt: 1, timeoutMs: 10_000, allowPrivate: true,
      });
      if (!r.ok) throw new Error(`bare attempt failed: ${r.error}`);
    }
  };
  await Promise.all(Array.from({ length: BARE_CONCURRENCY }, lane));
  return rate(total, performance.now() - start);
}

async function hangingReceivers(urls: Ready): Promise<{ p50: number; p99: number; max: number; n: number }> {
  const { db, drop } = await freshDatabase();
  try {
    const platform = platformOn(db, { WEBHOOK_TIMEOUT_MS: String(HANG_TIMEOUT_MS) });
    const webhooks = new WebhooksService(platform);
    await webhooks.endpoints.setUrl('mer_healthy', false, urls.healthy, system);
    webhooks.start();
    platform.outbox.start();
    // Every hanging receiver gets a delivery first (a payment's own URL each).
    await db.transaction(async (tx) => {
      for (const [i, url] of urls.hanging.entries()) {
        await appendEvent(tx, { type: 'payment.confirmed', livemode: false, merchantId: 'mer_hang', paymentId: `pay_h${i}`, data: { id: `pay_h${i}` }, webhookUrl: url, at: new Date() });
      }
    });
    await new Promise((r) => setTimeout(r, 500));
    // Then healthy events keep coming for a few seconds, while the 200 attempts hang.
    const committed = new Map<string, number>();
    for (let i = 0; i < 100; i++) {
      const ev = await db.transaction((tx) => appendEvent(tx, { type: 'payment.confirmed', livemode: false, merchantId: 'mer_healthy', paymentId: `pay_ok${i}`, data: { id: `pay_ok${i}` }, at: new Date() }));
      committed.set(ev.id, Date.now());
      await new Promise((r) => setTimeout(r, 40));
    }
    await new Promise((r) => setTimeout(r, 1500));
    const rows = await db.orm.select({ id: deliveries.id, eventId: deliveries.eventId }).from(deliveries).where(eq(deliveries.merchantId, 'mer_healthy'));
    const waits = rows.filter((r) => arrivals.has(r.id)).map((r) => arrivals.get(r.id)! - committed.get(r.eventId)!);
    const inFlight = webhooks.worker.limiter.inFlight;
    if (inFlight < HANGING) console.log(`note: only ${inFlight} attempts were hanging at the end`);
    await platform.outbox.stop();
    await webhooks.stop(0);
    return { p50: pct(waits, 0.5), p99: pct(waits, 0.99), max: Math.max(...waits), n: waits.length };
  } finally {
    await drop();
  }
}

const urls = await ready;
const bare = process.env.BENCH_ONLY === 'sustained' ? 1 : await bareLoop(urls.healthy);
const full = await sustained(urls);
console.log(`webhooks: routing ${routed.toLocaleString('en-US')} events/s into deliveries; attempts ${full.toLocaleString('en-US')} deliveries/s with state per attempt (${N} deliveries); bare signed POSTs without state: ${bare.toLocaleString('en-US')}/s; ratio ${(full / bare).toFixed(2)}`);
const h = await hangingReceivers(urls);
console.log(`webhooks: ${HANGING} receivers hanging ${HANG_TIMEOUT_MS / 1000} s: time to first attempt for a healthy receiver p50 ${h.p50} ms, p99 ${h.p99} ms, max ${h.max} ms (${h.n} deliveries)`);
await receiverThread.terminate();
process.exit(0);
