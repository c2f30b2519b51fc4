// The merchant dashboard in Debian's Chromium (issue 18): sign-up with a referral link, a walk per
// role through every page it may open (and a page it may not, shown as words, never a crash), a
// simulated payment followed live on its page and in the list without reloading, sign-out by the
// server with its reason. Screenshots of the main pages go to test-artifacts/dashboard/ (and, with
// UPDATE_DOCS_SCREENSHOTS=1, to docs/dashboard/ for the README).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openTestDatabase } from '../harness/databases.ts';
import { addMember, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { createPayment } from '../harness/payments.ts';
import { PROJECT_ROOT } from '../harness/node.ts';
import { startSocketApp, type SocketApp } from './realtime-support.ts';
import { PAGES, mayOpen, type PageName, type Role } from '../../web/dashboard/lib/paths.ts';
import { chromiumPresent, launchChromium } from '../harness/chromium.ts';
import { signInOnPage } from '../harness/dashboard-chromium.ts';

const ARTIFACTS = path.join(PROJECT_ROOT, 'test-artifacts', 'dashboard');
const DOCS = path.join(PROJECT_ROOT, 'docs', 'dashboard');
const WIDTHS = { mobile: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } };
const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('dashboard browser tests');

describe.skipIf(!hasChromium)('merchant dashboard in Chromium', { timeout: 120_000 }, () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let t: SocketApp;
  let owner: Account;
  let browser: Browser;

  beforeAll(async () => {
    opened = await openTestDatabase('pglite');
    t = await startSocketApp(opened.db, { env: { SIMULATION_STEP_MS: '600' } });
    t.services.payments.timers.start();
    owner = await signupAccount(t.app, { merchant_name: 'Café Olé' });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    if (process.env.UPDATE_DOCS_SCREENSHOTS) fs.mkdirSync(DOCS, { recursive: true });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.services.payments.timers.stop();
    await t?.close();
    await opened?.dispose();
  });

  async function open(url: string, size: keyof typeof WIDTHS = 'desktop'): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: WIDTHS[size], locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error' && !/status of 40[013]/.test(m.text())) errors.push(m.text()); });
    await page.goto(`${t.url}${url}`);
    return { page, errors };
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await signInOnPage(page, { email, password });
    await page.getByRole('navigation', { name: 'Main' }).waitFor(WAIT);
  }

  async function shoot(page: Page, name: string): Promise<void> {
    for (const [label, size] of Object.entries(WIDTHS)) {
      await page.setViewportSize(size);
      const file = `${name}-${label}.png`;
      await page.screenshot({ path: path.join(ARTIFACTS, file), fullPage: true });
      if (process.env.UPDATE_DOCS_SCREENSHOTS) fs.copyFileSync(path.join(ARTIFACTS, file), path.join(DOCS, file));
    }
    await page.setViewportSize(WIDTHS.desktop);
  }

  /** Opens a page by its navigation link and waits until it has loaded (its heading, no loading line). */
  async function visit(page: Page, name: PageName): Promise<void> {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: PAGES[name].title, exact: true }).click();
    await page.locator('main h1').filter({ hasText: PAGES[name].title }).waitFor(WAIT);
    await page.waitForFunction(() => !document.querySelector('main .loading'), null, WAIT);
  }

  it.concurrent('signs up from a referral link, shows the first keys once, then the overview with its checklist', async ({ expect }) => {
    const code = (await (await t.app.inject({ method: 'GET', url: '/merchant/affiliate', headers: tokenHeader(owner.accessToken) })).json()).code;
    const { page, errors } = await open(`/signup?ref=${code}`, 'mobile');
    expect(await page.getByLabel('Referral code (optional)').inputValue()).toBe(code);
    await page.getByLabel('Business name').fill('Referred Shop');
    await page.getByLabel('Email').fill(`ref-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    // The server's message, beside the field it is about (and tied to it for screen readers).
    const pw = page.getByLabel('Password');
    await page.getByRole('alert').filter({ hasText: 'password must be at least 8 characters' }).waitFor(WAIT);
    expect(await pw.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${await pw.getAttribute('aria-describedby')}`).innerText()).toBe('password must be at least 8 characters');
    await page.getByLabel('Password').fill('long-enough-9');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Your API keys' }).waitFor(WAIT);
    expect(await page.locator('[data-testid=secret]').allInnerTexts()).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/), expect.stringMatching(/^[0-9a-f]{64}$/)]);
    await page.getByRole('button', { name: 'Continue to the dashboard' }).click();
    await page.getByRole('list', { name: 'Setup checklist' }).waitFor(WAIT);
    expect(await page.getByRole('list', { name: 'Setup checklist' }).innerText()).toContain('Live mode off');
    const referrals = (await (await t.app.inject({ method: 'GET', url: '/merchant/affiliate/referrals', headers: tokenHeader(owner.accessToken) })).json()).referrals;
    expect(referrals.map((r: { merchant_name: string }) => r.merchant_name)).toContain('Referred Shop');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  const ROLES: Role[] = ['owner', 'developer', 'finance', 'viewer'];
  for (const role of ROLES) {
    it.concurrent(`walks every page a ${role} may open, and is told about one it may not`, async ({ expect }) => {
      const who = role === 'owner' ? { email: owner.email, password: owner.password } : await addMember(t.app, owner.accessToken, role);
      // Something to show on the pages.
      await createPayment(t.app, owner.testKey, { token: 'TRX', amount_usd: '42', customer_email: 'buyer@example.com' });
      if (role === 'owner') {
        // Confirmed payments in three chains, for the figures and the chart.
        const made = await Promise.all([['USDT_TRC20', '120'], ['ETH', '80.5'], ['BTC', '240']].map(([token, amount_usd]) => createPayment(t.app, owner.testKey, { token, amount_usd, simulate: 'confirmed' })));
        await expect.poll(async () => {
          const list = (await t.app.inject({ method: 'GET', url: '/merchant/payments?mode=test&status=confirmed&limit=200', headers: tokenHeader(owner.accessToken) })).json();
          return made.every((m) => list.payments.some((p: { id: string }) => p.id === m.id));
        }, WAIT).toBe(true);
      }
      const { page, errors } = await open('/payments?mode=test');
      await signIn(page, who.email, who.password);
      // The page asked for opens after sign-in, in the mode asked for.
      await page.locator('main h1').filter({ hasText: 'Payments' }).waitFor(WAIT);
      expect(await page.getByRole('note').first().innerText()).toContain('Test mode');
      const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();
      const allowed = (Object.keys(PAGES) as PageName[]).filter((p) => PAGES[p].nav && mayOpen(p, role));
      expect(nav).toEqual(allowed.map((p) => PAGES[p].title));
      for (const p of allowed) {
        await visit(page, p);
        expect(await page.locator('main').getByText('could not be loaded').count(), p).toBe(0);
        if (role === 'owner' && ['overview', 'payments', 'developers', 'money'].includes(p)) await shoot(page, `${p}-test`);
      }
      const forbidden = (Object.keys(PAGES) as PageName[]).find((p) => !mayOpen(p, role));
      if (forbidden) {
        await page.goto(`${t.url}${PAGES[forbidden].path}`);
        await page.getByText(`Your role (${role}) cannot open this page.`).waitFor(WAIT);
      }
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it.concurrent('follows a simulated payment through its statuses live, on its page and in the list, without reloading', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'ETH', amount_usd: '30', order_id: `live-${Date.now()}` });
    const { page, errors } = await open(`/payments/${p.id}?mode=test`);
    await signIn(page, owner.email, owner.password);
    const status = page.getByTestId('payment-status');
    await status.filter({ hasText: 'pending' }).waitFor(WAIT);
    const list = await browser.newContext({ viewport: WIDTHS.desktop }).then((c) => c.newPage());
    await list.goto(`${t.url}/payments?mode=test`);
    await signIn(list, owner.email, owner.password);
    const row = list.getByRole('row').filter({ hasText: p.order_id });
    await row.waitFor(WAIT);
    await page.waitForFunction(() => document.querySelector('.live-dot.up'), null, WAIT);
    await list.waitForFunction(() => document.querySelector('.live-dot.up'), null, WAIT);
    let reloaded = false;
    page.on('framenavigated', (f) => { if (f === page.mainFrame()) reloaded = true; });
    // Simulated from the page itself: the form, then the statuses as they come.
    await page.getByLabel('Outcome', { exact: true }).selectOption('confirmed');
    await page.getByRole('button', { name: 'Simulate' }).click();
    await status.filter({ hasText: 'confirmed' }).waitFor(WAIT);
    await row.filter({ hasText: 'confirmed' }).waitFor(WAIT);
    // Both steps arrived (two updates in one render on a busy machine show only the last).
    const events = page.getByRole('region', { name: 'Events' });
    await events.getByText('payment.confirmed').waitFor(WAIT);
    expect(await events.getByText('payment.detecting').count()).toBe(1);
    expect(reloaded).toBe(false);
    await shoot(page, 'payment-test');
    expect(errors).toEqual([]);
    await list.context().close();
    await page.context().close();
  });

  // A refresh token works once, and one presented again ends the session (reuse). Tabs share the
  // cookie, so two tabs exchanging it at once (a browser restoring its tabs, a laptop waking up) must
  // take turns, or the second would present the token the first just spent and sign both out.
  it.concurrent('two tabs refreshing at once stay signed in: their exchanges of the shared cookie take turns', async ({ expect }) => {
    const { page: first, errors } = await open('/');
    await signIn(first, owner.email, owner.password);
    const second = await first.context().newPage();
    await second.goto(`${t.url}/`);
    await second.getByRole('navigation', { name: 'Main' }).waitFor(WAIT);
    // Each exchange is held until the other tab's has been sent too (or a second went by): sent
    // together, both would carry the same cookie.
    const held: Array<() => void> = [];
    await first.context().route('**/merchant/auth/refresh', async (route) => {
      await new Promise<void>((go) => {
        held.push(go);
        if (held.length % 2 === 0) held.splice(0).forEach((g) => g());
        else setTimeout(() => { const i = held.indexOf(go); if (i >= 0) { held.splice(i, 1); go(); } }, 1_000);
      });
      await route.continue();
    });
    await Promise.all([first.reload(), second.reload()]);
    await first.getByRole('navigation', { name: 'Main' }).waitFor(WAIT);
    await second.getByRole('navigation', { name: 'Main' }).waitFor(WAIT);
    // and the session goes on: the latest cookie is exchanged again
    await first.context().unroute('**/merchant/auth/refresh');
    await second.reload();
    await second.getByRole('navigation', { name: 'Main' }).waitFor(WAIT);
    expect(await second.getByRole('button', { name: 'Sign in' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await first.context().close();
  });

  it.concurrent('a tab whose exchange of the cookie stalls holds the other tabs back a few seconds at most', async ({ expect }) => {
    const { page: first, errors } = await open('/');
    await signIn(first, owner.email, owner.password);
    const second = await first.context().newPage();
    // the first tab's next exchange never reaches the server: it holds the turn for as long as it waits
    let stalled = false;
    await first.route('**/merchant/auth/refresh', () => { stalled = true; });
    void first.reload().catch(() => undefined);
    await expect.poll(() => stalled, WAIT).toBe(true);
    const started = Date.now();
    await second.goto(`${t.url}/`);
    await second.getByRole('navigation', { name: 'Main' }).waitFor(WAIT);
    // the turn is waited for 5 s (session.ts LOCK_WAIT_MS), then the tab goes ahead alone
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_500);
    expect(errors).toEqual([]);
    await first.context().close();
  });

  it.concurrent('signs out cleanly, with the reason, when the server ends the session', async ({ expect }) => {
    const member = await addMember(t.app, owner.accessToken, 'viewer');
    const { page, errors } = await open('/');
    await signIn(page, member.email, member.password);
    await page.waitForFunction(() => document.querySelector('.live-dot.up'), null, WAIT);
    await t.app.inject({ method: 'PATCH', url: `/merchant/users/${member.id}`, headers: tokenHeader(owner.accessToken), payload: { role: 'finance' } });
    await page.getByText('Your role was changed. Sign in again to continue with your new role.').waitFor(WAIT);
    expect(await page.getByRole('button', { name: 'Sign in' }).isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('leaves "Signing you in" when the refresh on load answers before the first frame', async ({ expect }) => {
    // A busy machine or a hidden tab: no frame, and short timers a second late, so the app's effects
    // (its subscription to the session) run well after the refresh cookie has been refused.
    const context = await browser.newContext({ viewport: WIDTHS.desktop, locale: 'en-US' });
    await context.addInitScript(() => {
      const later = window.setTimeout.bind(window);
      window.requestAnimationFrame = () => 0;
      window.setTimeout = ((fn: TimerHandler, ms?: number, ...rest: unknown[]) => later(fn, (ms ?? 0) < 100 ? 1_000 : ms, ...rest)) as typeof window.setTimeout;
    });
    const page = await context.newPage();
    const refused = page.waitForResponse((r) => r.url().endsWith('/merchant/auth/refresh'));
    await page.goto(`${t.url}/signin`);
    expect((await refused).status()).toBe(401);
    await page.getByRole('button', { name: 'Sign in' }).waitFor(WAIT);
    await context.close();
  });
});
