// `gateway listen` latency: from an event's commit to the forwarded request reaching the developer's
// URL (target p99 < 500 ms). The service runs as `npm start` does (workers, outbox, sockets) on a
// fresh PostgreSQL database; the CLI's listen session and the receiving server run in this process.
// Events are test pings of the key's merchant, one per transaction, BENCH_LISTEN_EVENTS of them
// (default 300) spaced BENCH_LISTEN_GAP_MS apart (default 20).
// Run: node_modules/.bin/node bench/listen.ts   (TEST_DATABASE_URL for the server)
import './_interrupt.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { bootPlatform } from '../src/platform/boot.ts';
import { openScratchDatabase } from '../test/harness/scratch-db.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { startWorkers, stopWorkers } from '../src/workers.ts';
import { appendEvent } from '../src/events/index.ts';
import { listen } from '../bin/lib/listen.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EVENTS = Number(process.env.BENCH_LISTEN_EVENTS ?? 300);
const GAP_MS = Number(process.env.BENCH_LISTEN_GAP_MS ?? 20);

const { db, drop } = await openScratchDatabase('postgres', { poolMax: 10, prefix: 'gw_bench' });
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
try {
  const config = loadConfig({
    DATA_DIR: dataDir, AUTH_SECRET: 'bench-auth-secret-bench-auth-secret-0123', MARKET_FILE: path.join(HERE, '../test/fixtures/market.json'),
    WALLET_MNEMONIC: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about', LOG_LEVEL: 'silent', PORT: '0',
  });
  const platform = await bootPlatform(config, createLogger('silent'), { db });
  const services = await createServices(platform);
  const app = await buildApp(services);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  await startWorkers(services);
  const account = await services.accounts.signup({ merchant_name: 'Bench', email: `bench-${Date.now()}@example.com`, password: 'bench-password-1' }, {});
  const testKey = account.keys.find((k) => !k.row.livemode)!.secret;

  const committedAt = new Map<string, number>();
  const latencies: number[] = [];
  let done: () => void = () => {};
  const all = new Promise<void>((r) => { done = r; });
  const receiver = http.createServer((req, res) => {
    const id = String(req.headers['x-webhook-id']);
    req.resume().on('end', () => {
      const at = committedAt.get(id);
      if (at !== undefined) latencies.push(performance.now() - at);
      res.writeHead(200).end();
      if (latencies.length === EVENTS) done();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const session = listen({ apiUrl: base, apiKey: testKey, forwardTo: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` });
  await session.ready;

  for (let i = 0; i < EVENTS; i++) {
    const e = await db.transaction((tx) => appendEvent(tx, { type: 'ping', merchantId: account.merchant.id, livemode: false, data: { message: `bench ${i}` }, at: new Date() }));
    committedAt.set(e.id, performance.now());
    await new Promise((r) => setTimeout(r, GAP_MS));
  }
  await Promise.race([all, new Promise((r) => setTimeout(r, 30_000))]);
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]?.toFixed(1);
  console.log(`listen   event → forwarded request  ${latencies.length}/${EVENTS} events, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms (target p99 < 500 ms)`);
  session.close();
  receiver.close();
  await app.close();
  await stopWorkers(services);
} finally {
  await drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
