// Prometheus metrics: process defaults plus request durations by route and status. The route
// itself (/metrics) is the operator's and is registered through the admin guard in app.ts.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Records request durations; returns the handler that answers the registry's text. */
export function installMetrics(app: FastifyInstance, registry: Registry): (reply: FastifyReply) => Promise<string> {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  // A callback hook (no promise per request), like request-id.ts.
  app.addHook('onResponse', (req, reply, done) => {
    duration.observe(
      { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
  return async (reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  };
}
