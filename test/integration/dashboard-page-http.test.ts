// The dashboard as HTTP serves it (no browser): the app's HTML on its own paths only (any other
// path keeps its JSON 404), the strict policy, hashed files cached for good, one lazy file per
// page, a clear 503 when never built, and the initial weight under 60 kB gzipped.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { openTestDatabase } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { installErrorMapper } from '../../src/platform/http/index.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { DASHBOARD_CSP, DASHBOARD_DIST, DASHBOARD_NOT_BUILT, registerDashboardPage } from '../../src/realtime/dashboard-page.ts';
import { APP_PATHS, PAGES } from '../../web/dashboard/lib/paths.ts';

type Manifest = Record<string, { file: string; css?: string[]; imports?: string[]; isEntry?: boolean; isDynamicEntry?: boolean }>;
const manifest = () => JSON.parse(fs.readFileSync(path.join(DASHBOARD_DIST, '.vite/manifest.json'), 'utf8')) as Manifest;
const gz = (file: string) => zlib.gzipSync(fs.readFileSync(path.join(DASHBOARD_DIST, file)), { level: 9 }).length;

describe('merchant dashboard over HTTP', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let t: TestApp;
  beforeAll(async () => {
    opened = await openTestDatabase('pglite');
    t = await startTestApp(opened.db);
  });
  afterAll(async () => {
    await t?.close();
    await opened?.dispose();
  });

  it('answers the app on each of its paths, with the strict policy and no caching of the HTML', async () => {
    for (const url of ['/', '/payments', '/payments/pay_anything', '/developers', '/money', '/team', '/signin', '/signup?ref=ABCD1234', '/invite?token=x']) {
      const r = await t.app.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(200);
      expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(r.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      expect(r.headers['cache-control']).toBe('no-store');
      expect(r.body).toContain('<div id="root">');
    }
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).not.toContain('unsafe');
    expect(APP_PATHS).toEqual(expect.arrayContaining(Object.values(PAGES).map((p) => p.path)));
  });

  it('leaves every other path its 404, in JSON', async () => {
    for (const url of ['/nothing-here', '/payments/a/b', '/merchant/nothing', '/assets/missing.js']) {
      const r = await t.app.inject({ method: 'GET', url });
      expect([url, r.statusCode]).toEqual([url, 404]);
      expect(r.headers['content-type']).toContain('application/json');
    }
  });

  it('serves hashed files for a year, gzipped when asked', async () => {
    const entry = manifest()['index.html'].file;
    const r = await t.app.inject({ method: 'GET', url: `/${entry}`, headers: { 'accept-encoding': 'gzip' } });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(r.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('loads each page\'s code when it is first opened, and weighs under 60 kB gzipped at first', () => {
    const m = manifest();
    for (const page of ['overview', 'payments', 'payment', 'developers', 'money', 'settings', 'stores', 'team', 'audit', 'notifications', 'support', 'referrals', 'links', 'customers', 'account']) {
      expect(m[`pages/${page}.tsx`]?.isDynamicEntry, page).toBe(true);
    }
    const entry = m['index.html'];
    // What the HTML loads before anything is shown: the entry, its static imports and its styles.
    const initial = [entry.file, ...(entry.imports ?? []).map((k) => m[k].file), ...(entry.css ?? [])];
    const js = initial.filter((f) => f.endsWith('.js')).reduce((n, f) => n + gz(f), 0);
    const css = initial.filter((f) => f.endsWith('.css')).reduce((n, f) => n + gz(f), 0);
    console.log(`dashboard initial: JS ${(js / 1000).toFixed(1)} kB gz, CSS ${(css / 1000).toFixed(1)} kB gz, HTML ${(gz('index.html') / 1000).toFixed(1)} kB gz`);
    expect(js).toBeLessThan(60_000);
    // uPlot comes with the overview, not before.
    expect(fs.readFileSync(path.join(DASHBOARD_DIST, entry.file), 'utf8')).not.toContain('uplot');
  });

  it('answers 503 with the way out when the dashboard was never built', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'no-dashboard-'));
    const app = Fastify();
    installErrorMapper(app);
    registerDashboardPage(app, { log: createLogger('silent'), dist: empty });
    const r = await app.inject({ method: 'GET', url: '/payments' });
    expect([r.statusCode, r.json()]).toEqual([503, { error: DASHBOARD_NOT_BUILT }]);
    expect((await app.inject({ method: 'GET', url: '/assets/x.js' })).statusCode).toBe(404);
    await app.close();
    fs.rmSync(empty, { recursive: true });
  });
});
