// Prometheus metrics at /metrics: process defaults plus request durations by route and status.
// They describe the service's internals (chains, market, traffic), so they are the operator's:
// `Authorization: Bearer <ADMIN_TOKEN>` like /admin, and 404 when ADMIN_TOKEN is unset.
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

const digest = (s: string) => crypto.createHash('sha256').update(s).digest();

export function installMetrics(app: FastifyInstance, registry: Registry, adminToken: string | null): void {
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
  app.get('/metrics', async (req, reply) => {
    if (!adminToken) return reply.code(404).send({ error: 'not found' });
    const auth = req.headers.authorization ?? '';
    const given = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    if (!crypto.timingSafeEqual(digest(given), digest(adminToken))) return reply.code(401).send({ error: 'invalid admin token' });
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
