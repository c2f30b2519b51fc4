// The hosted checkout page in Debian's Chromium, against the service as `npm start` runs it (in
// process, PGlite): its weight (HTML, script, styles, the socket client and the words of one
// language, as gzip sends them) and the time from navigation to the deposit address shown, for a
// payment whose coin is chosen: first visits (an empty cache each) and returning ones, in English
// and in Spanish (its words are a file of their own). Target: weight < 40 kB, address < 300 ms.
// Run: node_modules/.bin/node bench/checkout-page.ts [navigations=15]
import './_interrupt.ts';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { CHECKOUT_DIST } from '../src/realtime/checkout-page.ts';
import { ensureWebBuilt } from '../web/build.ts';
import { CHROMIUM, launchChromium } from '../test/harness/chromium.ts';
import { startPageService } from './_page-service.ts';

const RUNS = Number(process.argv[2] ?? 15);

if (!fs.existsSync(CHROMIUM)) {
  console.log(`skipped: ${CHROMIUM} is absent`);
  process.exit(0);
}
ensureWebBuilt();
const svc = await startPageService('pglite');
const { app, base, key } = svc;
const create = async (token: string) => (await app.inject({
  method: 'POST', url: '/v1/payments', headers: { authorization: `Bearer ${key}` },
  payload: { order_id: `bench-${Math.random()}`, amount_usd: '25', token },
})).json() as { checkout_token: string };

// ---- weight
const manifest = JSON.parse(fs.readFileSync(path.join(CHECKOUT_DIST, '.vite/manifest.json'), 'utf8')) as Record<string, { file: string; css?: string[] }>;
const sample = await create('XRP');
const files = [`/pay/${sample.checkout_token}`, `/pay/${manifest['index.html'].file}`, `/pay/${manifest['index.html'].css![0]}`, '/socket.io/socket.io.min.js'];
let weight = 0;
const parts: string[] = [];
for (const url of files) {
  const body = Buffer.from(await (await fetch(`${base}${url}`)).arrayBuffer());
  const gz = zlib.gzipSync(body, { level: 9 }).length;
  weight += gz;
  parts.push(`${path.basename(url).replace(sample.checkout_token, '<token>')} ${(gz / 1000).toFixed(1)}`);
}
const words = ['en', 'es', 'pt', 'ru', 'zh', 'tr'].map((l) => zlib.gzipSync(fs.readFileSync(path.join(CHECKOUT_DIST, manifest[`i18n/${l}.ts`].file)), { level: 9 }).length);
console.log(`weight (gzip, kB): ${parts.join(', ')}; one language ${(Math.min(...words) / 1000).toFixed(1)}–${(Math.max(...words) / 1000).toFixed(1)}`);
console.log(`weight total with the largest language: ${((weight + Math.max(...words)) / 1000).toFixed(1)} kB (target < 40)`);

// ---- time to address
const browser = await launchChromium();
// When the address first appears, in ms since navigation start (the page's time origin).
const MARK = () => {
  const w = window as unknown as { addressShownAt?: number };
  new MutationObserver((_m, obs) => {
    if (document.getElementById('address')?.textContent) { w.addressShownAt = performance.now(); obs.disconnect(); }
  }).observe(document, { childList: true, subtree: true, characterData: true });
};

async function timeToAddress(locale: string, warm: boolean): Promise<number[]> {
  const times: number[] = [];
  const shared = warm ? await browser.newContext({ locale }) : null;
  if (shared) await shared.addInitScript(MARK);
  if (shared) await (await shared.newPage()).goto(`${base}/pay/${(await create('ETH')).checkout_token}`); // fills the cache
  for (let i = 0; i < RUNS; i++) {
    const context = shared ?? await browser.newContext({ locale });
    if (!shared) await context.addInitScript(MARK);
    const page = await context.newPage();
    await page.goto(`${base}/pay/${(await create('ETH')).checkout_token}`);
    await page.waitForFunction(() => (window as unknown as { addressShownAt?: number }).addressShownAt !== undefined, null, { timeout: 10_000 });
    times.push(await page.evaluate(() => (window as unknown as { addressShownAt: number }).addressShownAt));
    await page.close();
    if (!shared) await context.close();
  }
  await shared?.close();
  return times.sort((a, b) => a - b);
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
for (const [locale, warm] of [['en-US', false], ['en-US', true], ['es-ES', false], ['es-ES', true]] as const) {
  const t = await timeToAddress(locale, warm);
  console.log(`navigation → address shown, ${locale} ${warm ? 'returning' : 'first visit'}: p50 ${pct(t, 0.5).toFixed(0)} ms, p90 ${pct(t, 0.9).toFixed(0)} ms, max ${t[t.length - 1].toFixed(0)} ms over ${t.length} (target < 300)`);
}

await browser.close();
await svc.close();
process.exit(0);
