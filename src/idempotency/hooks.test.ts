import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { coveredRoute, installIdempotency } from './hooks.ts';
import type { IdempotencyStore } from './store.ts';
import type { RequestFingerprints } from './fingerprint.ts';

describe('routes given the Idempotency-Key hooks', () => {
  it('are the POST routes under /v1 and /merchant, and only those', () => {
    expect(coveredRoute({ method: 'POST', url: '/v1/payments' })).toBe(true);
    expect(coveredRoute({ method: 'POST', url: '/merchant/payouts/:id/cancel' })).toBe(true);
    expect(coveredRoute({ method: ['GET', 'POST'], url: '/v1/webhook/test' })).toBe(true);
    expect(coveredRoute({ method: 'GET', url: '/v1/payments' })).toBe(false);
    expect(coveredRoute({ method: 'POST', url: '/checkout/:checkoutToken/token' })).toBe(false);
    expect(coveredRoute({ method: 'POST', url: '/v1beta/payments' })).toBe(false);
  });

  it('are hooked per route, prefixes included, so other routes run no idempotency hook', async () => {
    const app = Fastify();
    installIdempotency(app, {} as IdempotencyStore, {} as RequestFingerprints);
    const hooked: Record<string, boolean> = {};
    app.addHook('onRoute', (r) => { hooked[`${r.method} ${r.url}`] = Array.isArray(r.preHandler) && r.preHandler.length > 0; });
    app.get('/checkout/:t', async () => ({}));
    await app.register(async (scope) => { scope.post('/payments', async () => ({})); }, { prefix: '/v1' });
    await app.ready();
    expect(hooked).toEqual({ 'GET /checkout/:t': false, 'HEAD /checkout/:t': false, 'POST /v1/payments': true });
    await app.close();
  });
});
