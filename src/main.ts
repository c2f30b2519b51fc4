// Composition root: configuration → database → services → HTTP, sockets, workers.
import module from 'node:module';
import { adminTokenWarning, ConfigError, loadConfig, type Config } from './config.ts';
import { createLogger } from './platform/logger.ts';
import { bootPlatform } from './platform/boot.ts';
import { createServices } from './services.ts';
import { buildApp } from './app.ts';
import { startWorkers, stopWorkers } from './workers.ts';
import { ensureWebBuilt } from '../web/build.ts';

const SHUTDOWN_LIMIT_MS = 9000;

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const log = createLogger(config.logLevel);
  if (config.walletMnemonicGenerated) {
    log.warn(`WALLET_MNEMONIC is not set: using a development mnemonic generated in ${config.dataDir}; never use it for real funds`);
  }
  const weak = adminTokenWarning(config.adminToken);
  if (weak) log.warn(weak);
  if (config.webhookAllowPrivate) {
    log.warn('WEBHOOK_ALLOW_PRIVATE=1: webhook URLs may use http and private hosts; for development only');
  }
  // The web pages are built at `npm ci`; sources edited since are built again here.
  const web = ensureWebBuilt();
  if (web === 'built') log.info('web pages built');
  if (web === 'failed') log.error('building the web pages failed: serving the previous build');
  const platform = await bootPlatform(config, log);
  const services = await createServices(platform);
  const app = await buildApp(services);
  await app.listen({ port: config.port, host: config.host });
  await startWorkers(services);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      log.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS);
    force.unref();
    try {
      await app.close();
      await stopWorkers(services);
      await platform.db.close();
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  // Handlers first, then `listening on`: whoever sees that line may stop the service at once, and a
  // SIGTERM that came before the handler would kill the process mid-request (Node's default).
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.stdout.write(`listening on ${config.publicUrl}\n`);
  // Node writes the compile cache (src/compile-cache.js) at exit; written now, a process that is
  // killed still leaves the next start a warm cache. A no-op when the cache is off.
  module.flushCompileCache();
}

main().catch((err) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
