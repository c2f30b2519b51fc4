// What a team member was typing survives the end of the session (README "The merchant dashboard",
// Session): the server ends it (revoked, role or password changed) while a form is half written,
// the sign-in page shows, and the same member signing in again in that tab lands back on the page
// with the text filled in again. Another member signing in there gets nothing, and the kept text is
// dropped; a password typed into a form is never kept; a removal keeps nothing.
import { describe, it } from 'vitest';
import type { Page } from 'playwright-core';
import { addMember, signIn as apiSignIn, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium, signInOnPage } from '../harness/dashboard-chromium.ts';

const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('dashboard draft tests');

describe.skipIf(!hasChromium)('dashboard drafts kept across a sign-in, in Chromium', { timeout: 120_000 }, () => {
  const env = dashboardInChromium();

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await signInOnPage(page, { email, password });
    await page.getByRole('navigation', { name: 'Main' }).waitFor(WAIT);
  }

  /** A tab on `url`, signed in as `who`, its socket up (so the server's auth:error reaches it). */
  async function openAs(url: string, who: { email: string; password: string }): Promise<{ page: Page; errors: string[] }> {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error' && !/status of 40[0-9]/.test(m.text())) errors.push(m.text()); });
    await page.goto(`${env.t.url}${url}`);
    await signIn(page, who.email, who.password);
    await page.waitForFunction(() => document.querySelector('.live-dot.up') && !document.querySelector('main .loading'), null, WAIT);
    return { page, errors };
  }

  const stored = (page: Page) => page.evaluate(() => JSON.stringify(Object.fromEntries(Object.entries(sessionStorage))));
  const revokeAll = async (who: { email: string; password: string }) => {
    const s = await apiSignIn(env.t.app, who.email, who.password);
    await env.t.app.inject({ method: 'POST', url: '/merchant/auth/logout-all', headers: tokenHeader(s.accessToken) });
  };

  it.concurrent('payout address: revoked mid-form, the same owner signs in again on /signin and is back on /money with the address, tag and label, never the password', async ({ expect }) => {
    const owner: Account = await signupAccount(env.t.app);
    const { page, errors } = await openAs('/money?mode=test', owner);
    const form = page.getByRole('form', { name: 'Add a payout address' });
    await form.getByLabel('Coin').selectOption('XRP');
    await form.getByLabel('Address').fill('rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY');
    await form.getByLabel('Destination tag').fill('12345');
    await form.getByLabel('Label').fill('Cold wallet, second floor safe');
    await form.getByLabel('Your password').fill('never-kept-pw-77');
    await revokeAll(owner);
    await page.getByText('You were signed out (the session was ended).').waitFor(WAIT);
    const kept = await stored(page);
    expect(kept).toContain('Cold wallet, second floor safe');
    expect(kept).not.toContain('never-kept-pw-77');
    expect(kept).not.toContain(owner.password);
    // a reload of the sign-in page keeps it too (same tab)
    await page.goto(`${env.t.url}/signin`);
    await signIn(page, owner.email, owner.password);
    await page.waitForURL(`${env.t.url}/money?mode=test`, WAIT);
    const again = page.getByRole('form', { name: 'Add a payout address' });
    await expect.poll(() => again.getByLabel('Label').inputValue(), WAIT).toBe('Cold wallet, second floor safe');
    expect(await again.getByLabel('Coin').inputValue()).toBe('XRP');
    expect(await again.getByLabel('Address').inputValue()).toBe('rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY');
    expect(await again.getByLabel('Destination tag').inputValue()).toBe('12345');
    expect(await again.getByLabel('Your password').inputValue()).toBe('');
    // restored once: gone from the tab's storage
    expect(await stored(page)).toBe('{}');
    // the restored text is what the form sends
    await again.getByLabel('Your password').fill(owner.password);
    await again.getByRole('button', { name: 'Add address' }).click();
    await page.getByRole('cell', { name: 'Cold wallet, second floor safe', exact: true }).waitFor(WAIT);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('payment link: password changed elsewhere (auth:error), signed in with the new one: the fields are back', async ({ expect }) => {
    const owner: Account = await signupAccount(env.t.app);
    const { page, errors } = await openAs('/links?mode=test', owner);
    const form = page.getByRole('form', { name: 'New payment link' });
    await form.getByLabel('Name').fill('Annual plan');
    await form.getByLabel('Amount (USD)').fill('129.00');
    await form.getByLabel('Description').fill('Twelve months of everything, billed once');
    const s = await apiSignIn(env.t.app, owner.email, owner.password);
    const changed = await env.t.app.inject({ method: 'POST', url: '/merchant/me/password', headers: tokenHeader(s.accessToken), payload: { current_password: owner.password, new_password: 'brand-new-pass-9' } });
    expect(changed.statusCode).toBe(200);
    // the sockets of the user's other sessions are told session_revoked
    await page.getByText('You were signed out (the session was ended).').waitFor(WAIT);
    expect(await stored(page)).not.toContain('brand-new-pass-9');
    await signIn(page, owner.email, 'brand-new-pass-9');
    const again = page.getByRole('form', { name: 'New payment link' });
    await expect.poll(() => again.getByLabel('Description').inputValue(), WAIT).toBe('Twelve months of everything, billed once');
    expect(await again.getByLabel('Name').inputValue()).toBe('Annual plan');
    expect(await again.getByLabel('Amount (USD)').inputValue()).toBe('129.00');
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/links?mode=test');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('support message: role changed mid-sentence; the owner signing in in that tab gets nothing of it, and it is dropped', async ({ expect }) => {
    const owner: Account = await signupAccount(env.t.app);
    const member = await addMember(env.t.app, owner.accessToken, 'developer');
    const { page, errors } = await openAs('/support', member);
    await page.getByRole('textbox', { name: 'Message' }).fill('Hello, our webhook to https://shop.example/hook keeps failing since');
    await env.t.app.inject({ method: 'PATCH', url: `/merchant/users/${member.id}`, headers: tokenHeader(owner.accessToken), payload: { role: 'viewer' } });
    await page.getByText('Your role was changed. Sign in again to continue with your new role.').waitFor(WAIT);
    expect(await stored(page)).toContain('keeps failing since');
    await signIn(page, owner.email, owner.password);
    await page.getByRole('form', { name: 'Send a message' }).waitFor(WAIT);
    await page.waitForFunction(() => !document.querySelector('main .loading'), null, WAIT);
    await page.waitForTimeout(500);
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('');
    expect(await stored(page)).toBe('{}');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('kept for 30 minutes: the same member signing in later than that gets nothing back', async ({ expect }) => {
    const owner: Account = await signupAccount(env.t.app);
    const { page, errors } = await openAs('/links?mode=test', owner);
    await page.getByRole('form', { name: 'New payment link' }).getByLabel('Name').fill('Stale plan');
    await revokeAll(owner);
    await page.getByText('You were signed out (the session was ended).').waitFor(WAIT);
    // as if 31 minutes had passed since the session ended
    await page.evaluate(() => {
      for (const k of Object.keys(sessionStorage)) {
        const d = JSON.parse(sessionStorage.getItem(k)!);
        sessionStorage.setItem(k, JSON.stringify({ ...d, at: d.at - 31 * 60_000 }));
      }
    });
    await signIn(page, owner.email, owner.password);
    await page.getByRole('form', { name: 'New payment link' }).waitFor(WAIT);
    await page.waitForTimeout(500);
    expect(await page.getByRole('form', { name: 'New payment link' }).getByLabel('Name').inputValue()).toBe('');
    expect(await stored(page)).toBe('{}');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('a member removed mid-form keeps nothing', async ({ expect }) => {
    const owner: Account = await signupAccount(env.t.app);
    const member = await addMember(env.t.app, owner.accessToken, 'developer');
    const { page } = await openAs('/support', member);
    await page.getByRole('textbox', { name: 'Message' }).fill('Half a thought');
    await env.t.app.inject({ method: 'DELETE', url: `/merchant/users/${member.id}`, headers: tokenHeader(owner.accessToken) });
    await page.getByText('You were removed from this account.').waitFor(WAIT);
    expect(await stored(page)).toBe('{}');
    await page.context().close();
  });
});
