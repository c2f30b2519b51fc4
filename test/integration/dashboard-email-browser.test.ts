// The member's own e-mail notifications on "Your account" (/account) in Debian's Chromium: an owner
// turns the referral "Payout requested" mail off and a category on, saved through PATCH
// /merchant/me/email-notifications; a developer is offered only the categories their role sees.
import { describe, it } from 'vitest';
import type { Page } from 'playwright-core';
import { addMember, signupAccount, tokenHeader } from '../harness/accounts.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium, signInOnPage } from '../harness/dashboard-chromium.ts';

const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('dashboard e-mail notification tests');

describe.skipIf(!hasChromium)('e-mail notifications in the dashboard, in Chromium', { timeout: 120_000 }, () => {
  const env = dashboardInChromium();

  async function openAccount(email: string, password: string): Promise<{ page: Page; errors: string[] }> {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // the page's refresh before signing in answers 401: not an error of the page
    page.on('console', (m) => { if (m.type() === 'error' && !/status of 40[0-9]/.test(m.text())) errors.push(m.text()); });
    await page.goto(`${env.t.url}/account`);
    await signInOnPage(page, { email, password });
    await page.getByRole('form', { name: 'E-mail notifications' }).waitFor(WAIT);
    return { page, errors };
  }
  const prefs = (token: string) => env.t.app.inject({ method: 'GET', url: '/merchant/me/email-notifications', headers: tokenHeader(token) }).then((r) => r.json().email_notifications);

  it.concurrent('an owner turns "Payout requested" off and payments on, and sees it kept after a reload', async ({ expect }) => {
    const owner = await signupAccount(env.t.app);
    const { page, errors } = await openAccount(owner.email, owner.password);
    const form = page.getByRole('form', { name: 'E-mail notifications' });
    const payoutRequested = form.getByLabel('Payout requested (referral payouts)');
    expect(await payoutRequested.isChecked()).toBe(true);
    const offered = await form.getByRole('group', { name: 'Every notification of' }).getByRole('checkbox').evaluateAll((xs) => xs.map((x) => x.parentElement!.textContent!.trim()));
    expect(offered).toEqual(['account', 'payments', 'webhooks', 'payouts', 'affiliates', 'support', 'team', 'security']);
    await payoutRequested.uncheck();
    await form.getByLabel('payments', { exact: true }).check();
    await form.getByRole('button', { name: 'Save e-mail notifications' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor(WAIT);
    expect(await prefs(owner.accessToken)).toEqual({ referral_payout_requested: false, categories: ['payments'] });
    await page.reload();
    const again = page.getByRole('form', { name: 'E-mail notifications' });
    await again.waitFor(WAIT);
    expect(await again.getByLabel('Payout requested (referral payouts)').isChecked()).toBe(false);
    expect(await again.getByLabel('payments', { exact: true }).isChecked()).toBe(true);
    expect(errors).toEqual([]);
  });

  it.concurrent('a developer is offered only the categories their role sees, and no referral mail', async ({ expect }) => {
    const owner = await signupAccount(env.t.app);
    const dev = await addMember(env.t.app, owner.accessToken, 'developer');
    const { page, errors } = await openAccount(dev.email, dev.password);
    const form = page.getByRole('form', { name: 'E-mail notifications' });
    const offered = await form.getByRole('group', { name: 'Every notification of' }).getByRole('checkbox').evaluateAll((xs) => xs.map((x) => x.parentElement!.textContent!.trim()));
    expect(offered).toEqual(['account', 'payments', 'webhooks', 'payouts', 'support', 'security']);
    expect(await form.getByLabel('Payout requested (referral payouts)').count()).toBe(0);
    await form.getByLabel('webhooks', { exact: true }).check();
    await form.getByRole('button', { name: 'Save e-mail notifications' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor(WAIT);
    expect((await prefs(dev.accessToken)).categories).toEqual(['webhooks']);
    expect(errors).toEqual([]);
  });
});
