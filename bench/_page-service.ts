// The service the page benches (checkout page, dashboard) drive from Chromium: the whole app on a
// scratch database with its workers, listening on a free port, with one test-mode merchant.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { bootPlatform } from '../src/platform/boot.ts';
import type { Database } from '../src/platform/db/index.ts';
import { createServices, type Services } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { startWorkers, stopWorkers } from '../src/workers.ts';
import { openScratchDatabase } from '../test/harness/scratch-db.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));

export interface PageService {
  db: Database;
  app: FastifyInstance;
  services: Services;
  base: string;
  email: string;
  password: string;
  /** The merchant's test-mode secret key. */
  key: string;
  close(): Promise<void>;
}

export async function startPageService(kind: 'pglite' | 'postgres'): Promise<PageService> {
  const { db, drop } = await openScratchDatabase(kind, { prefix: 'gw_bench' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
  const config = loadConfig({
    DATA_DIR: dataDir, AUTH_SECRET: 'bench-auth-secret-bench-auth-secret-0123', LOG_LEVEL: 'silent', PORT: '0',
    WALLET_MNEMONIC: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    MARKET_FILE: path.resolve(HERE, '../test/fixtures/market.json'),
  });
  const platform = await bootPlatform(config, createLogger('silent'), { db });
  const services = await createServices(platform);
  const app = await buildApp(services);
  await app.listen({ port: 0, host: '127.0.0.1' });
  await startWorkers(services);
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const email = `bench-${Date.now()}@example.com`;
  const password = 'bench-password-1';
  const account = await services.accounts.signup({ merchant_name: 'Bench shop', email, password }, {});
  const key = account.keys.find((k) => !k.row.livemode)!.secret;
  return {
    db, app, services, base, email, password, key,
    async close() {
      await app.close();
      await stopWorkers(services);
      await drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
