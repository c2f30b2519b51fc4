// The merchant dashboard in Debian's Chromium, against the service as `npm start` runs it (in
// process): its initial weight (HTML, script, styles as gzip sends them), the time from
// navigation to the payments page showing 50 rows with 100,000 payments in the database (a reload
// of /payments: refresh by cookie, who am I, the list; and a click from the overview), and the
// page's memory after 1,000 live `payment:update`s of the rows shown (it should not grow beyond
// them). Targets: initial JS < 60 kB gz, payments page < 1 s.
// Run: node_modules/.bin/node bench/dashboard.ts   (BENCH_ENGINES=postgres,pglite; TEST_DATABASE_URL for the server)
import './_interrupt.ts';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/platform/db/index.ts';
import { appendEvent } from '../src/events/index.ts';
import { DASHBOARD_DIST } from '../src/realtime/dashboard-page.ts';
import { ensureWebBuilt } from '../web/build.ts';
import { CHROMIUM, launchChromium } from '../test/harness/chromium.ts';
import { startPageService } from './_page-service.ts';

const PAYMENTS = 100_000;
const UPDATES = 1_000;
const RUNS = 7;
if (!fs.existsSync(CHROMIUM)) {
  console.log(`skipped: ${CHROMIUM} is absent`);
  process.exit(0);
}
ensureWebBuilt();

// ---- weight (from the build, as gzip level 9 sends it)
const manifest = JSON.parse(fs.readFileSync(path.join(DASHBOARD_DIST, '.vite/manifest.json'), 'utf8')) as Record<string, { file: string; css?: string[]; imports?: string[] }>;
const gz = (f: string) => zlib.gzipSync(fs.readFileSync(path.join(DASHBOARD_DIST, f)), { level: 9 }).length / 1000;
const entry = manifest['index.html'];
console.log(`initial weight (gzip, kB): HTML ${gz('index.html').toFixed(1)}, JS ${[entry.file, ...(entry.imports ?? []).map((k) => manifest[k].file)].reduce((n, f) => n + gz(f), 0).toFixed(1)}, CSS ${(entry.css ?? []).reduce((n, f) => n + gz(f), 0).toFixed(1)}; later: socket.io client from the service, each page on first open (overview with uPlot ${(gz(manifest['pages/overview.tsx'].file) + gz(manifest['pages/overview.tsx'].css?.[0] ?? manifest['pages/overview.tsx'].file)).toFixed(1)}, payments ${gz(manifest['pages/payments.tsx'].file).toFixed(1)})`);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function benchEngine(kind: 'pglite' | 'postgres'): Promise<void> {
  const svc = await startPageService(kind);
  const { db, app, services, base, email, password, key } = svc;
  const sample = (await app.inject({ method: 'POST', url: '/v1/payments', headers: { authorization: `Bearer ${key}` }, payload: { order_id: 'bench-0', amount_usd: '25', token: 'TRX' } })).json() as { id: string; merchant_id: string };

  // 100,000 copies of a real payment row (new ids, order ids, tokens, a minute apart), in one statement.
  const cols = (await queryRows<{ column_name: string }>(db.orm, sql`select column_name from information_schema.columns where table_name = 'payments' and table_schema = current_schema() order by ordinal_position`)).map((r) => r.column_name);
  const over: Record<string, string> = {
    id: `'pay_bench' || g`, order_id: `'bench-' || g`, checkout_token: `'ct_bench' || g`, created_at: `created_at - g * interval '1 minute'`,
  };
  const list = cols.map((c) => `"${c}"`).join(', ');
  const values = cols.map((c) => over[c] ?? `"${c}"`).join(', ');
  const t0 = performance.now();
  await db.orm.execute(sql.raw(`insert into payments (${list}) select ${values} from payments, generate_series(1, ${PAYMENTS}) g where id = '${sample.id}'`));
  await db.orm.execute(sql.raw('analyze payments'));
  console.log(`[${kind}] ${PAYMENTS} payments written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/signin`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  const rows = () => page.waitForFunction(() => document.querySelectorAll('main tbody tr').length === 50, null, { timeout: 30_000, polling: 'raf' });

  // A reload of /payments: the time origin is the navigation's start.
  const reload: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await page.goto(`${base}/payments?mode=test`);
    await rows();
    reload.push(await page.evaluate(() => performance.now()));
  }
  // A click on "Payments" from the overview (its code already loaded after the first time).
  const click: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await page.goto(`${base}/?mode=test`);
    await page.getByRole('list', { name: 'Setup checklist' }).waitFor();
    const start = await page.evaluate(() => performance.now());
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payments', exact: true }).click();
    await rows();
    click.push(await page.evaluate(() => performance.now()) - start);
  }
  const total = (await app.inject({ method: 'GET', url: '/v1/payments?limit=1', headers: { authorization: `Bearer ${key}` } })).json().total;
  console.log(`[${kind}] payments page with ${total} payments, 50 rows shown (ms, median of ${RUNS}; target < 1000): reload ${median(reload).toFixed(0)} (min ${Math.min(...reload).toFixed(0)}, max ${Math.max(...reload).toFixed(0)}), click from overview ${median(click).toFixed(0)} (min ${Math.min(...click).toFixed(0)}, max ${Math.max(...click).toFixed(0)})`);

  // ---- memory after live updates of the rows shown
  await page.goto(`${base}/payments?mode=test`);
  await rows();
  await page.waitForFunction(() => document.querySelector('.live-dot.up'));
  const cdp = await context.newCDPSession(page);
  const heap = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    const h = await cdp.send('Runtime.getHeapUsage');
    return { mb: h.usedSize / 1e6, nodes: await page.evaluate(() => document.getElementsByTagName('*').length) };
  };
  const before = await heap();
  const shown = await page.evaluate(() => Array.from(document.querySelectorAll('main tbody tr a')).map((a) => a.getAttribute('href')!.split('/').pop()!.split('?')[0]));
  const views = await services.payments.viewsByIds(sample.merchant_id, shown);
  // Two rounds: a heap that keeps growing in the second holds on to updates; one that settles does not.
  for (let round = 1; round <= 2; round++) {
    const t1 = performance.now();
    for (let i = 0; i < UPDATES; i++) {
      const p = views[i % views.length];
      // The last one moves its row to detecting (back to pending in the next round): seen on the page, every update before it was too.
      const last = i === UPDATES - 1;
      const status = last ? (round === 1 ? 'detecting' : 'pending') : (round === 1 ? p.status : 'detecting');
      const data = { ...p, status, confirmations: i % 20, confirmations_required: 20 };
      await db.transaction((tx) => appendEvent(tx, { type: 'payment.confirmations', merchantId: sample.merchant_id, paymentId: p.id as string, livemode: false, data, at: new Date() }));
    }
    const lastOrder = views[(UPDATES - 1) % views.length].order_id as string;
    await page.getByRole('row').filter({ hasText: lastOrder }).filter({ hasText: round === 1 ? 'detecting' : 'pending' }).waitFor({ timeout: 120_000 });
    const seconds = (performance.now() - t1) / 1000;
    const after = await heap();
    console.log(`[${kind}] round ${round}: ${UPDATES} live updates of the 50 rows shown, all on the page in ${seconds.toFixed(1)} s: JS heap ${before.mb.toFixed(2)} → ${after.mb.toFixed(2)} MB, DOM elements ${before.nodes} → ${after.nodes}, rows ${await page.locator('main tbody tr').count()}`);
  }

  await browser.close();
  await svc.close();
}

for (const kind of (process.env.BENCH_ENGINES ?? 'postgres,pglite').split(',') as ('postgres' | 'pglite')[]) await benchEngine(kind);
process.exit(0);
