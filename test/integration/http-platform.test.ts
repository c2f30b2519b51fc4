// The HTTP plumbing every route relies on: request ids, JSON bodies, errors, health, metrics.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { badRequest } from '../../src/platform/errors.ts';

describeEachDb('http platform', (h) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(h.db(), {
      extraRoutes: (app) => {
        app.post('/__probe/echo', async (req) => ({ got: req.body ?? null }));
        app.get('/__probe/domain-error', async () => { throw badRequest('amount_usd must be greater than 0'); });
        app.get('/__probe/crash', async () => { throw new Error('secret internals at /etc/passwd'); });
      },
    });
  });
  afterAll(async () => { await t.close(); });

  it('answers /healthz with {"status":"ok"}', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('echoes X-Request-Id when sent and makes one when not', async () => {
    const a = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(a.headers['x-request-id']).toBe('abc-123');
    const b = await t.app.inject({ method: 'GET', url: '/nope' });
    expect(b.headers['x-request-id']).toMatch(/^req_[0-9a-z]{26}$/);
  });

  it('answers 400 invalid request body to a body that is not JSON, whatever the content type', async () => {
    for (const ct of ['application/json', 'text/plain', 'application/x-www-form-urlencoded']) {
      const res = await t.app.inject({ method: 'POST', url: '/__probe/echo', headers: { 'content-type': ct }, payload: '{"a":' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid request body' });
    }
  });

  it('takes an empty body as no body and parses JSON under any content type', async () => {
    const empty = await t.app.inject({ method: 'POST', url: '/__probe/echo', headers: { 'content-type': 'application/json' }, payload: '' });
    expect(empty.json()).toEqual({ got: null });
    const text = await t.app.inject({ method: 'POST', url: '/__probe/echo', headers: { 'content-type': 'text/plain' }, payload: '{"a":1}' });
    expect(text.json()).toEqual({ got: { a: 1 } });
  });

  it('maps domain errors to {"error": message} and hides internals behind a 500', async () => {
    const d = await t.app.inject({ method: 'GET', url: '/__probe/domain-error' });
    expect(d.statusCode).toBe(400);
    expect(d.json()).toEqual({ error: 'amount_usd must be greater than 0' });
    const c = await t.app.inject({ method: 'GET', url: '/__probe/crash' });
    expect(c.statusCode).toBe(500);
    expect(c.json()).toEqual({ error: 'internal error' });
    expect(c.body).not.toContain('passwd');
  });

  it('answers unknown routes 404 {"error":"not found"}', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not found' });
  });

  it('refuses bodies over 1 MiB with 413', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/__probe/echo', headers: { 'content-type': 'application/json' }, payload: `"${'x'.repeat(1_100_000)}"` });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'request body too large' });
  });

  it('exposes Prometheus metrics at /metrics', async () => {
    await t.app.inject({ method: 'GET', url: '/healthz' });
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer test-admin-token' } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('http_request_duration_seconds_bucket');
    expect(res.body).toContain('route="/healthz"');
  });
});
