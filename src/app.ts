// Builds the Fastify app from services. main.ts serves it; tests build it the same way.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { requestChildLogger } from './platform/logger.ts';
import { sql } from 'drizzle-orm';
import { MAX_PARAM_CHARS, answerFrameworkError, installBadInputGuards, trustProxyOption } from './platform/http/index.ts';
import { BODY_LIMIT_BYTES, createMetricsRegistry, genRequestId, installErrorMapper, installJsonBody, installMetrics, installRequestId } from './platform/http/index.ts';
import type { Services } from './services.ts';
import { NoCurrentPriceError, registerMarketMetrics } from './market/index.ts';
import { registerRoutes } from './routes.ts';
import { createIdempotencyStore, installIdempotency, RequestFingerprints } from './idempotency/index.ts';
import { recordRouteTable, registerOpenApiRoutes } from './openapi/index.ts';
import { listenExtension } from './listen/index.ts';
import { registerChainMetrics } from './chains/watch/index.ts';
import { adminRoute } from './admin/index.ts';

export async function buildApp(services: Services): Promise<FastifyInstance> {
  const { config, log, db } = services.platform;
  const app = Fastify({
    loggerInstance: log as unknown as FastifyBaseLogger,
    genReqId: genRequestId,
    childLoggerFactory: requestChildLogger as unknown as FastifyServerOptions['childLoggerFactory'],
    requestIdHeader: false,
    logController: new LogController({
      requestIdLogLabel: 'request_id',
      disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace',
    }),
    trustProxy: trustProxyOption(config.trustProxy),
    bodyLimit: BODY_LIMIT_BYTES,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    frameworkErrors: answerFrameworkError,
    routerOptions: { maxParamLength: MAX_PARAM_CHARS },
    // Slow clients: a request must arrive whole within 30 s; a socket idle for 2 minutes is closed.
    requestTimeout: 30_000,
    connectionTimeout: 120_000,
  });
  app.decorateRequest('auth', null);
  recordRouteTable(app);
  installRequestId(app);
  installJsonBody(app);
  installBadInputGuards(app);
  // a coin with no current price may have one after the next refresh of prices
  installErrorMapper(app, { retryAfterOf: (err) => (err instanceof NoCurrentPriceError ? config.rateRefreshS : undefined) });
  const metrics = createMetricsRegistry();
  registerMarketMetrics(metrics, services.market);
  registerChainMetrics(metrics, services.watching);
  const answerMetrics = installMetrics(app, metrics);
  // They describe the service's internals (chains, market, traffic), so they are the operator's:
  // the same guard as /admin (404 without ADMIN_TOKEN, lockout after wrong tokens).
  adminRoute(app, config.adminToken, { method: 'GET', url: '/metrics', handler: (_req, reply) => answerMetrics(reply) });

  app.get('/healthz', async (_req, reply) => {
    try {
      await db.orm.execute(sql`select 1`);
      return { status: 'ok' };
    } catch {
      return reply.code(503).send({ status: 'unavailable' });
    }
  });

  installIdempotency(app, createIdempotencyStore(db, services.platform.clock, config.authSecret), new RequestFingerprints(config.authSecret));
  await registerRoutes(app, services);
  registerOpenApiRoutes(app, { serverUrl: config.publicUrl, version: '1' });
  services.realtime.extend(listenExtension(services.accounts.authn));
  services.realtime.register(app);
  return app;
}
