// Builds the whole app in process on a test database, the way main.ts does, for app.inject().
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/platform/logger.ts';
import { bootPlatform } from '../../src/platform/boot.ts';
import type { Clock } from '../../src/platform/clock.ts';
import type { Database } from '../../src/platform/db/index.ts';
import type { Platform } from '../../src/platform/context.ts';
import { createServices, type Services } from '../../src/services.ts';
import { buildApp } from '../../src/app.ts';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
export const TEST_MARKET_FILE = path.join(FIXTURES, 'market.json');
/** BIP-39 test vector; only ever used for test deposit addresses. */
export const TEST_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  platform: Platform;
  config: Config;
  close(): Promise<void>;
}

/** The webhook secrets' key of every test app (and of the processes tests start). */
export const TEST_WEBHOOK_SECRET_KEY = 'test-webhook-secret-key-test-webhook-secret-key';

/** The secrets and market of every test app, and of the service processes tests start. */
export const TEST_SERVICE_ENV: Readonly<Record<string, string>> = {
  AUTH_SECRET: 'test-auth-secret-test-auth-secret-0123456789',
  // one key for every app of a test over the same database (each has its own DATA_DIR)
  WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
  // the cost before OWASP's (tests sign in thousands of times); the default is tested on its own
  PASSWORD_SCRYPT_N: '16384',
  MARKET_FILE: TEST_MARKET_FILE,
  ADMIN_TOKEN: 'test-admin-token',
};

export function testConfig(env: Record<string, string> = {}): Config {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-test-'));
  return loadConfig({
    DATA_DIR: dataDir,
    ...TEST_SERVICE_ENV,
    WALLET_MNEMONIC: TEST_MNEMONIC,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    WEBHOOK_ALLOW_PRIVATE: '1',
    ...env,
  });
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** A logger of the test's own (to read what the service logs); default: the configured level, to stdout. */
  log?: Logger;
  /** Extra routes for probing the plumbing, registered before the app is ready. */
  extraRoutes?: (app: FastifyInstance, services: Services) => void;
}

export async function startTestApp(db: Database, opts: TestAppOptions = {}): Promise<TestApp> {
  const config = testConfig(opts.env);
  const platform = await bootPlatform(config, opts.log ?? createLogger(config.logLevel), { db, clock: opts.clock });
  const services = await createServices(platform);
  const app = await buildApp(services);
  opts.extraRoutes?.(app, services);
  await app.ready();
  return {
    app, services, platform, config,
    close: async () => {
      await app.close();
      await services.watching.stop();
      // the transfer worker, and its node connections (an XRP WebSocket)
      await services.sending.stop();
      await platform.outbox.stop();
      await services.payments.close();
      fs.rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}
