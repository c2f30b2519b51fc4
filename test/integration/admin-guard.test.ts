// The operator API's door: 404 without ADMIN_TOKEN, 401 with a wrong token.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { adminRoute } from '../../src/admin/index.ts';

describeEachDb('admin guard', (h) => {
  let on: TestApp;
  let off: TestApp;
  beforeAll(async () => {
    const probe = (token: string | null) => (app: TestApp['app']) => adminRoute(app, token, { method: 'GET', url: '/admin/__probe', handler: async (_r, _p, actor) => ({ kind: actor.kind }) });
    on = await startTestApp(h.db(), { extraRoutes: (app, s) => probe(s.platform.config.adminToken)(app) });
    off = await startTestApp(h.db(), { env: { ADMIN_TOKEN: '' }, extraRoutes: (app, s) => probe(s.platform.config.adminToken)(app) });
  });
  afterAll(async () => { await on.close(); await off.close(); });

  it('answers 404 when ADMIN_TOKEN is unset', async () => {
    const res = await off.app.inject({ method: 'GET', url: '/admin/__probe', headers: { authorization: 'Bearer anything' } });
    expect(res.statusCode).toBe(404);
  });

  it('answers 401 invalid admin token without the right token, and lets the right one in', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 'test-admin-token' }]) {
      const res = await on.app.inject({ method: 'GET', url: '/admin/__probe', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'invalid admin token' });
    }
    const ok = await on.app.inject({ method: 'GET', url: '/admin/__probe', headers: { authorization: 'Bearer test-admin-token' } });
    expect(ok.json()).toEqual({ kind: 'admin' });
  });
});
