// GET /docs in Chromium: Scalar's reference renders the document (operations, webhook events, the
// Idempotency-Key and API key scheme show up) and the page asks for nothing outside this service.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { SocketApp } from './realtime-support.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium } from '../harness/dashboard-chromium.ts';

const hasChromium = chromiumPresent('API reference browser test');

describe.skipIf(!hasChromium)('API reference page in Chromium', { timeout: 150_000 }, () => {
  const env = dashboardInChromium();
  let t: SocketApp;
  let browser: Browser;
  beforeAll(() => { ({ t, browser } = env); });

  it('renders the document with no request outside this service', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const origin = new URL(t.url).origin;
    const outside: string[] = [];
    // Every request is seen here; one to another origin is recorded and never leaves the machine.
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    const blocked: string[] = [];
    page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) blocked.push(m.text()); });
    await page.goto(`${t.url}/docs`, { waitUntil: 'networkidle', timeout: 60_000 });
    await page.getByText('Create a payment').first().waitFor({ timeout: 30_000 });
    // The reference shows the webhook events, the Idempotency-Key header and the API key scheme.
    // Scalar renders its operations lazily, on idle time: on a loaded machine (CI runs files side by
    // side) the creation's section, with its Idempotency-Key, can come seconds after the sidebar entry
    // waited for above, so the words are waited for too.
    const words = ['Webhooks', 'Idempotency-Key', 'X-API-Key'];
    await page
      .waitForFunction((wanted) => wanted.every((w) => document.documentElement.outerHTML.includes(w)), words, { timeout: 60_000, polling: 250 })
      .catch(() => { /* the expectations below name the missing word */ });
    const html = await page.content();
    for (const word of words) expect(html, word).toContain(word);
    expect(outside).toEqual([]);
    expect(blocked).toEqual([]);
    await context.close();
  });
});
