// The hosted checkout page in Debian's Chromium (spec 1 "Surfaces"): choose a coin, see the
// address and QR, simulate an outcome and watch the page reach confirmed without a reload; a
// closed-unpaid XRP payment shows its tag warning and the cancel link. Screenshots of each state
// at 360 px and desktop width go to test-artifacts/checkout/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { openTestDatabase } from '../harness/databases.ts';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { createPayment } from '../harness/payments.ts';
import { PROJECT_ROOT } from '../harness/node.ts';
import { startSocketApp, type SocketApp } from './realtime-support.ts';
import { foundOrNull } from '../../src/realtime/index.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.join(PROJECT_ROOT, 'test-artifacts', 'checkout');
const WIDTHS = { mobile: { width: 360, height: 780 }, desktop: { width: 1280, height: 900 } };
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`checkout page browser tests skipped: ${CHROMIUM} is absent (apt-get install chromium)`);

describe.skipIf(!hasChromium)('hosted checkout page in Chromium', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let t: SocketApp;
  let owner: Account;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    opened = await openTestDatabase('pglite');
    t = await startSocketApp(opened.db, { env: { SIMULATION_STEP_MS: '1500' } });
    // The real payer view, not the fake one of the socket tests.
    t.services.realtime.use({ checkout: { payerViewByToken: (tok) => foundOrNull(t.services.payments.checkoutView(tok)) } });
    t.services.payments.timers.start();
    owner = await signupAccount(t.app);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-chromium-'));
    const { chromium } = await import('playwright-core');
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
      viewport: WIDTHS.mobile,
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await t?.services.payments.timers.stop();
    await t?.close();
    await opened?.dispose();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  async function shoot(page: Page, name: string): Promise<void> {
    for (const [label, size] of Object.entries(WIDTHS)) {
      await page.setViewportSize(size);
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${label}.png`), fullPage: true });
    }
    await page.setViewportSize(WIDTHS.mobile);
  }

  it('lists coins, shows address and QR after the choice, and reaches confirmed live', async () => {
    const p = await createPayment(t.app, owner.testKey, { token: undefined, amount_usd: '25', success_url: 'https://shop.example/thanks', cancel_url: 'https://shop.example/cart' });
    const page = await context.newPage();
    const websockets: string[] = [];
    page.on('websocket', (ws) => websockets.push(ws.url()));
    await page.goto(`${t.url}/pay/${p.checkout_token}`);
    await page.locator('#coins button').first().waitFor();
    expect(await page.locator('#test-banner').isVisible()).toBe(true);
    expect(await page.locator('#coins button').count()).toBe((p.token_options as unknown[]).length);
    // Nothing overflows at 360 px.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await shoot(page, '1-choose');

    await page.locator('#coins button[data-token="ETH"]').click();
    await page.locator('#address').filter({ hasText: /0x[0-9a-fA-F]{40}/ }).waitFor();
    await page.waitForFunction(() => (document.getElementById('qr') as HTMLImageElement).naturalWidth > 0);
    expect(await page.locator('#coin').textContent()).toBe('ETH');
    expect(await page.locator('#countdown').textContent()).toMatch(/Time left: 1[45]:\d\d/);
    expect(await page.locator('#tag-field').isVisible()).toBe(false);
    await shoot(page, '2-pending');

    // Every status text the page shows, in order (a reload would lose the marker and the list).
    await page.evaluate(() => {
      const w = window as unknown as { marker: number; seen: string[] };
      w.marker = 42;
      w.seen = [];
      const status = document.getElementById('status')!;
      new MutationObserver(() => { if (w.seen[w.seen.length - 1] !== status.textContent) w.seen.push(status.textContent ?? ''); })
        .observe(status, { childList: true, characterData: true, subtree: true });
    });
    await page.selectOption('#outcome', 'confirmed');
    await page.locator('#simulate-run').click();
    await page.locator('#status', { hasText: 'Waiting for network confirmations' }).waitFor({ timeout: 20_000 });
    expect(await page.locator('#countdown').textContent()).toBe('');
    await shoot(page, '3-detecting');
    await page.locator('#status', { hasText: 'Payment confirmed' }).waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    expect(seen).toContain('Payment received. Waiting for network confirmations.');
    expect(seen[seen.length - 1]).toBe('Payment confirmed. Thank you!');
    const success = page.locator('#success');
    expect(await success.isVisible()).toBe(true);
    expect(await success.getAttribute('href')).toBe('https://shop.example/thanks');
    expect(page.url()).toContain('/pay/');
    // The page's policy lets the socket upgrade to WebSocket.
    expect(websockets.some((u) => u.includes('/socket.io/'))).toBe(true);
    await shoot(page, '4-confirmed');
    await page.close();
  });

  it('warns about the XRP destination tag and links back to the shop when closed unpaid', async () => {
    const p = await createPayment(t.app, owner.testKey, { token: 'XRP', amount_usd: '25', cancel_url: 'https://shop.example/cart' });
    const page = await context.newPage();
    await page.goto(`${t.url}/pay/${p.checkout_token}`);
    await page.locator('#tag-field').waitFor();
    expect(await page.locator('#tag').textContent()).toBe(String(p.destination_tag));
    await shoot(page, '5-xrp-tag');
    await page.selectOption('#outcome', 'expired');
    await page.locator('#simulate-run').click();
    await page.locator('#status', { hasText: 'This payment expired' }).waitFor({ timeout: 20_000 });
    expect(await page.locator('#cancel').getAttribute('href')).toBe('https://shop.example/cart');
    expect(await page.locator('#success').isVisible()).toBe(false);
    expect(await page.locator('#simulate').isVisible()).toBe(false);
    await shoot(page, '6-expired');
    await page.close();
  });

  it('falls back to polling GET /checkout/{token} when the socket cannot connect', async () => {
    const p = await createPayment(t.app, owner.testKey, { token: 'LTC' });
    const page = await context.newPage();
    await page.route('**/socket.io/**', (route) => route.abort());
    await page.goto(`${t.url}/pay/${p.checkout_token}`);
    await page.locator('#address').filter({ hasText: /\S/ }).waitFor();
    expect(await page.evaluate(() => typeof (window as unknown as { io?: unknown }).io)).toBe('undefined');
    await page.locator('#simulate-run').click();
    await page.locator('#status', { hasText: 'Payment confirmed' }).waitFor({ timeout: 20_000 });
    await page.close();
  });

  it('stays small: page, styles, script and socket client under 150 kB gzipped', async () => {
    const p = await createPayment(t.app, owner.testKey, { token: 'BTC' });
    let total = 0;
    const sizes: Record<string, number> = {};
    for (const url of [`/pay/${p.checkout_token}`, '/pay/assets/checkout.css', '/pay/assets/checkout.js', '/socket.io/socket.io.min.js', `/checkout/${p.checkout_token}/qr.svg`]) {
      const res = await fetch(`${t.url}${url}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(res.status, url).toBe(200);
      const body = Buffer.from(await res.arrayBuffer());
      // fetch decodes; count what crossed the wire: the gzipped size when the server compressed.
      const wire = res.headers.get('content-encoding') === 'gzip' ? zlib.gzipSync(body).length : body.length;
      sizes[url.replace(String(p.checkout_token), '<token>')] = wire;
      total += wire;
    }
    console.log(`checkout page transfer (gzip): ${JSON.stringify(sizes)} total ${total} bytes`);
    expect(total).toBeLessThan(150_000);
  });
});
