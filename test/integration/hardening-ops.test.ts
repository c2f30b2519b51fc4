// Issue 17 finding 7: failed queries are logged without their bound values, /metrics is the
// operator's (ADMIN_TOKEN), and slow clients are cut off (request and connection timeouts).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { ADMIN_MAX_FAILURES } from '../../src/admin/guard.ts';

describeEachDb('operations hardening', (h) => {
  let t: TestApp;
  let noAdmin: TestApp;
  beforeAll(async () => {
    t = await startTestApp(h.db());
    noAdmin = await startTestApp(h.db(), { env: { ADMIN_TOKEN: '' } });
  });
  afterAll(async () => { await t.close(); await noAdmin.close(); });

  it('a failed query is logged with its SQL but without the values bound to it', async () => {
    const lines: string[] = [];
    const log = createLogger('error', new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } }));
    const secret = 'scrypt$16384$8$1$c2FsdA==$c2VjcmV0LWhhc2gtdmFsdWU=';
    const email = 'someone.private@example.com';
    let caught: unknown;
    try {
      // Drizzle puts the bound values in the error's params and in its message.
      await t.platform.db.orm.execute(sql`insert into no_such_table (email, password_hash) values (${email}, ${secret})`);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Error);
    // Unredacted, the error carries the values (the finding).
    expect(JSON.stringify({ m: (caught as Error).message, p: (caught as { params?: unknown }).params })).toContain(email);
    log.error({ err: caught }, 'request failed');
    log.error({ error: caught }, 'job failed');
    // The background workers (chain watch, transfers) log a failed pass by its message alone.
    log.error({ err: (caught as Error).message }, 'pass failed');
    const out = lines.join('');
    expect(out).toContain('no_such_table');
    expect(out).not.toContain(email);
    expect(out).not.toContain(secret);
    expect(out).not.toContain('c2VjcmV0LWhhc2gtdmFsdWU');
  });

  it('/metrics answers only the operator: 401 without ADMIN_TOKEN, 404 when it is unset', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ error: 'invalid admin token' });
    const wrong = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer test-admin-tokem' } });
    expect(wrong.statusCode).toBe(401);
    const ok = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer test-admin-token' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('process_cpu_seconds_total');
    const off = await noAdmin.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer test-admin-token' } });
    expect(off.statusCode).toBe(404);
    expect(off.json()).toEqual({ error: 'not found' });
  });

  it('wrong tokens on /metrics count toward the same lockout as /admin', async () => {
    const from = { remoteAddress: '203.0.113.77' };
    for (let i = 0; i < ADMIN_MAX_FAILURES; i++) {
      const r = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer wrong-${i}` }, ...from });
      expect(r.statusCode).toBe(401);
    }
    // Locked out everywhere the admin token is checked, even with the right token.
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer test-admin-token' }, ...from });
    expect(metrics.statusCode).toBe(429);
    const admin = await t.app.inject({ method: 'GET', url: '/admin/chains', headers: { authorization: 'Bearer test-admin-token' }, ...from });
    expect(admin.statusCode).toBe(429);
  });

  it('sets request and connection timeouts on the server', () => {
    expect(t.app.server.requestTimeout).toBe(30_000);
    expect(t.app.server.timeout).toBe(120_000);
  });
});
