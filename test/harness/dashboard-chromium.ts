// The dashboard's and the checkout page's browser tests: the service on PGlite with its sockets and
// Chromium, started once for a describe block and closed after it, and the sign-in form filled as a
// member would.
import { afterAll, beforeAll } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openTestDatabase } from './databases.ts';
import { launchChromium } from './chromium.ts';
import { startSocketApp, type SocketApp } from '../integration/realtime-support.ts';
import type { TestAppOptions } from './app.ts';
import { foundOrNull } from '../../src/realtime/index.ts';

export interface InChromiumOptions extends TestAppOptions {
  /** The checkout socket serves real payer views (the socket app's default is the socket tests' fake one). */
  payerViews?: boolean;
}

/**
 * Registers the block's set-up and tear-down; `t` and `browser` are there once its tests run.
 * `opts` as a function is read when the block starts (after the set-ups registered before this one).
 */
export function dashboardInChromium(opts: InChromiumOptions | (() => InChromiumOptions) = {}): { readonly t: SocketApp; readonly browser: Browser } {
  let opened: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  let t: SocketApp | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    const { payerViews, ...appOptions } = typeof opts === 'function' ? opts() : opts;
    opened = await openTestDatabase('pglite');
    const app = t = await startSocketApp(opened.db, appOptions);
    if (payerViews) app.services.realtime.use({ checkout: { payerViewByToken: (tok) => foundOrNull(app.services.payments.checkoutView(tok)) } });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await opened?.dispose();
  });
  return { get t() { return t!; }, get browser() { return browser!; } };
}

/** Fills the sign-in form on `page` and sends it with its button. */
export async function signInOnPage(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * A page of its own (new context) on the dashboard's `path`, `who` signed in through the form, once
 * the navigation is up and no section is still loading. `errors` collects the page's uncaught errors
 * and, with `consoleErrors`, what it logs as an error other than a refused (40x) answer.
 */
export async function openSignedIn(browser: Browser, baseUrl: string, path: string, who: { email: string; password: string }, opts: { consoleErrors?: boolean } = {}): Promise<{ page: Page; errors: string[] }> {
  const wait = { timeout: 30_000 };
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  if (opts.consoleErrors) page.on('console', (m) => { if (m.type() === 'error' && !/status of 40[0-9]/.test(m.text())) errors.push(m.text()); });
  await page.goto(`${baseUrl}${path}`);
  await signInOnPage(page, who);
  await page.getByRole('navigation', { name: 'Main' }).waitFor(wait);
  await page.waitForFunction(() => !document.querySelector('main .loading'), null, wait);
  return { page, errors };
}
