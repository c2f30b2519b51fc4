// Cost of API-key authentication: the same trivial GET with and without an API key, 50 connections
// for ~5 s each, against an in-process server on a fresh PostgreSQL database. Prints both req/s and
// their ratio (target >= 0.8). The per-key rate limit (20/s) is lifted for the measured route so the
// run measures the lookup itself, not 429 answers.
// Run: node_modules/.bin/node bench/auth.ts   (TEST_DATABASE_URL picks the server; BENCH_SECONDS the duration)
import './_interrupt.ts';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { createPgDatabase } from '../test/harness/scratch-db.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { bootPlatform } from '../src/platform/boot.ts';
import { openPostgres } from '../src/platform/db/index.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { AccountsService, apiRoute } from '../src/accounts/index.ts';

interface AutocannonResult { requests: { average: number }; non2xx: number; errors: number }
type Autocannon = (opts: { url: string; connections: number; duration: number; headers?: Record<string, string> }) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const SERVER = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const CONNECTIONS = 50;
const TARGET = 0.8;

async function withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const created = await createPgDatabase(SERVER, 'gw_bench');
  try {
    return await fn(created.url);
  } finally {
    await created.drop();
  }
}

async function main(): Promise<void> {
  await withDatabase(async (url) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
    const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: url, AUTH_SECRET: crypto.randomBytes(32).toString('hex'), LOG_LEVEL: 'silent', WALLET_MNEMONIC: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about' });
    const db = await openPostgres(url, { max: 10 });
    const platform = await bootPlatform(config, createLogger('silent'), { db });
    const services = await createServices(platform);
    const unlimited = new AccountsService(platform, { take: async () => true, count: async () => 0 });
    const app = await buildApp(services);
    app.get('/bench/open', async () => ({ ok: true }));
    apiRoute(app, unlimited.authn, { method: 'GET', url: '/bench/keyed', readOnlyAllowed: true, handler: async () => ({ ok: true }) });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const signup = await app.inject({ method: 'POST', url: '/merchant/signup', payload: { merchant_name: 'Bench', email: `bench-${Date.now()}@example.com`, password: 'bench-password' } });
      const testKey = signup.json().api_keys.find((k: { api_key: { livemode: boolean } }) => !k.api_key.livemode).secret as string;
      const run = async (label: string, urlPath: string, headers?: Record<string, string>) => {
        await autocannon({ url: address + urlPath, connections: CONNECTIONS, duration: 1, headers }); // warm-up
        const r = await autocannon({ url: address + urlPath, connections: CONNECTIONS, duration: SECONDS, headers });
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`${label}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        console.log(`${label.padEnd(34)} ${r.requests.average.toFixed(0).padStart(7)} req/s`);
        return r.requests.average;
      };
      const open = await run('GET without authentication', '/bench/open');
      const keyed = await run('GET with an API key', '/bench/keyed', { authorization: `Bearer ${testKey}` });
      const ratio = keyed / open;
      console.log(`ratio keyed/open: ${ratio.toFixed(2)} (target >= ${TARGET}) ${ratio >= TARGET ? 'ok' : 'BELOW TARGET'}`);
    } finally {
      await app.close();
      await platform.outbox.stop();
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

await main();
