// The notifications page in Chromium follows the reader's read marks (`notification:read`, spec
// 6.3, sent to the reader's sockets): a notification marked read in another tab shows read here
// without a reload, and the unread count with it.
import { describe, it } from 'vitest';
import { signupAccount, tokenHeader } from '../harness/accounts.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium, signInOnPage } from '../harness/dashboard-chromium.ts';
import { raiseNotification } from '../../src/notifications/index.ts';

const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('dashboard notifications browser tests');

describe.skipIf(!hasChromium)('the notifications page in Chromium', { timeout: 120_000 }, () => {
  const env = dashboardInChromium();

  it('shows a notification read in another tab as read (notification:read)', async ({ expect }) => {
    const owner = await signupAccount(env.t.app, { merchant_name: 'Reads' });
    const n = await env.t.platform.db.transaction((tx) => raiseNotification(tx, {
      merchantId: owner.merchant.id, category: 'account', title: 'Read me elsewhere', body: 'A notification.', at: new Date(),
    }));
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${env.t.url}/notifications`);
    await signInOnPage(page, owner);
    const item = page.getByRole('listitem').filter({ hasText: 'Read me elsewhere' });
    await item.getByRole('button', { name: 'Mark read' }).waitFor(WAIT);
    await page.getByText('Live updates on').waitFor(WAIT);
    const unreadBefore = await page.getByRole('heading', { name: /unread/ }).innerText();
    // the same member, in another tab (the API with their token), marks it read
    const read = await env.t.app.inject({ method: 'POST', url: '/merchant/notifications/read', headers: tokenHeader(owner.accessToken), payload: { ids: [n.id] } });
    expect(read.statusCode).toBe(200);
    await item.getByRole('button', { name: 'Mark read' }).waitFor({ state: 'detached', ...WAIT });
    expect(await page.getByRole('heading', { name: /unread/ }).innerText()).not.toBe(unreadBefore);
    expect(await item.getAttribute('class')).toBe('done');
    expect(errors).toEqual([]);
    await context.close();
  });

  // CONTRACT "Notifications": the list route filters by `category`; the page offers the categories
  // the member's role sees.
  it('lists one category of notifications, among those the role sees', async ({ expect }) => {
    const owner = await signupAccount(env.t.app, { merchant_name: 'Categories' });
    for (const [category, title] of [['account', 'About the account'], ['payouts', 'About a payout'], ['security', 'About security']] as const) {
      await env.t.platform.db.transaction((tx) => raiseNotification(tx, { merchantId: owner.merchant.id, category, title, body: 'A notification.', at: new Date() }));
    }
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${env.t.url}/notifications`);
    await signInOnPage(page, owner);
    const titles = () => page.locator('main li strong').allInnerTexts();
    await expect.poll(async () => (await titles()).sort(), WAIT).toEqual(['About a payout', 'About security', 'About the account']);
    const category = page.getByLabel('Category');
    expect(await category.locator('option').allInnerTexts()).toEqual(['All', 'account', 'payments', 'webhooks', 'payouts', 'affiliates', 'support', 'team', 'security']);
    await category.selectOption('payouts');
    await expect.poll(titles, WAIT).toEqual(['About a payout']);
    await context.close();
  });
});
