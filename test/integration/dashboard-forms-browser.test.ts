// The dashboard's forms in Debian's Chromium (issue 18, second round): settings with `convert_into`
// chosen from a list, edit forms of payment links and customers, referral payouts to a chosen
// address, deliveries paged, support messages edited and deleted. Each error of the API is shown
// beside the field it names (role="alert", tied by aria-describedby).
import { beforeAll, describe, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { addMember, randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { ADDR } from '../harness/settlement.ts';
import type { SocketApp } from './realtime-support.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium, openSignedIn } from '../harness/dashboard-chromium.ts';
import { eq } from 'drizzle-orm';
import { deliveries } from '../../src/webhooks/index.ts';
import { payoutAddresses } from '../../src/settlement/index.ts';
import { confirmPayment, createPayment } from '../harness/payments.ts';
import { Receiver } from '../harness/webhooks.ts';

const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('dashboard form tests');

describe.skipIf(!hasChromium)('dashboard forms in Chromium', { timeout: 120_000 }, () => {
  // Simulations step at once: confirmPayment runs them to their end.
  const env = dashboardInChromium({ env: { SIMULATION_STEP_MS: '0' } });
  let t: SocketApp;
  let browser: Browser;
  beforeAll(() => { ({ t, browser } = env); });

  /** A new merchant's owner, signed in on `url`, with the page loaded. */
  async function openAs(url: string, who?: Account): Promise<{ page: Page; errors: string[]; owner: Account }> {
    const owner = who ?? await signupAccount(t.app);
    return { ...(await openSignedIn(browser, t.url, url, owner, { consoleErrors: true })), owner };
  }

  /** The text of the error tied to a field (aria-invalid, aria-describedby). */
  async function fieldError(field: Locator): Promise<string> {
    await field.and(field.page().locator('[aria-invalid=true]')).waitFor(WAIT);
    return field.page().locator(`#${await field.getAttribute('aria-describedby')}`).innerText();
  }

  const api = (owner: Account, url: string) => t.app.inject({ method: 'GET', url, headers: tokenHeader(owner.accessToken) }).then((r) => r.json());

  it.concurrent('settings: convert_into chosen among cheapest, order and the coins; an error shown beside its field', async ({ expect }) => {
    const { page, errors, owner } = await openAs('/settings');
    const convert = page.getByLabel('Convert into');
    expect(await convert.evaluate((s: HTMLSelectElement) => s.tagName)).toBe('SELECT');
    const values = await convert.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(values.slice(0, 2)).toEqual(['cheapest', 'order']);
    expect(values).toEqual(expect.arrayContaining(['USDT_TRC20', 'ETH', 'BTC', 'XRP']));
    expect(await convert.inputValue()).toBe('cheapest');
    await convert.selectOption('ETH');
    const tolerance = page.getByLabel('Underpaid tolerance (basis points, 0 to 2000)');
    await tolerance.fill('5000');
    await page.getByRole('button', { name: 'Save settings' }).click();
    expect(await fieldError(tolerance)).toBe('underpaid_tolerance_bps must be between 0 and 2000');
    await tolerance.fill('50');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor(WAIT);
    const m = (await api(owner, '/merchant/me')).merchant;
    expect([m.convert_into, m.underpaid_tolerance_bps]).toEqual(['ETH', 50]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('payment links: edited in a form, the name refused beside its field', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const made = await t.app.inject({ method: 'POST', url: '/merchant/links?mode=test', headers: tokenHeader(owner.accessToken), payload: { name: 'Coffee', amount_usd: '4.50' } });
    const link = made.json().link;
    const { page, errors } = await openAs('/links?mode=test', owner);
    await page.getByRole('button', { name: 'Edit Coffee' }).click();
    const name = page.getByLabel('Link name');
    expect(await name.inputValue()).toBe('Coffee');
    await name.fill('');
    await page.getByRole('button', { name: 'Save link' }).click();
    expect(await fieldError(name)).toBe('name is required (up to 100 characters)');
    await name.fill('Coffee, large');
    await page.getByLabel('Link description').fill('A large one');
    await page.getByRole('button', { name: 'Save link' }).click();
    await page.getByRole('cell', { name: 'Coffee, large', exact: true }).waitFor(WAIT);
    const after = (await api(owner, `/merchant/links/${link.id}`)).link;
    expect([after.name, after.description]).toEqual(['Coffee, large', 'A large one']);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('customers: name and metadata edited in a form, mistakes shown beside the metadata', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const made = await t.app.inject({ method: 'POST', url: '/merchant/customers?mode=test', headers: tokenHeader(owner.accessToken), payload: { email: 'ada@example.com' } });
    const customer = made.json().customer;
    const { page, errors } = await openAs('/customers?mode=test', owner);
    await page.getByRole('button', { name: 'Edit ada@example.com' }).click();
    const metadata = page.getByRole('form', { name: 'Edit customer' }).getByLabel('Metadata (JSON)');
    await metadata.fill('[1, 2]');
    await page.getByRole('button', { name: 'Save customer' }).click();
    expect(await fieldError(metadata)).toBe('metadata must be an object');
    await metadata.fill('plan: pro');
    await page.getByRole('button', { name: 'Save customer' }).click();
    await page.getByRole('alert').filter({ hasText: 'JSON object' }).waitFor(WAIT);
    expect(await fieldError(metadata)).toBe('metadata must be a JSON object, like {"plan": "pro"}');
    await page.getByLabel('Customer name').fill('Ada L.');
    await metadata.fill('{"plan": "pro"}');
    await page.getByRole('button', { name: 'Save customer' }).click();
    await page.getByRole('cell', { name: 'Ada L.', exact: true }).waitFor(WAIT);
    const after = (await api(owner, `/merchant/customers/${customer.id}`)).customer;
    expect([after.name, after.metadata]).toEqual(['Ada L.', { plan: 'pro' }]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('referral program: a payout to a chosen USDT (Tron) payout address, or to another address with the password', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const add = (address: string) => t.app.inject({ method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(owner.accessToken), payload: { token: 'USDT_TRC20', address, password: owner.password } }).then((r) => r.json().address);
    await add(ADDR.TRON);
    const second = await add(ADDR.TRON_2);
    // a second address is paid out to 24 hours after it was added (active_at): as if added a day ago
    await t.platform.db.orm.update(payoutAddresses).set({ activeAt: new Date(Date.now() - 60_000) }).where(eq(payoutAddresses.id, second.id));
    const { page, errors } = await openAs('/referral-program', owner);
    const to = page.getByLabel('Pay to');
    await to.locator(`option[value="${second.id}"]`).waitFor({ state: 'attached', ...WAIT });
    expect(await to.locator('option').allInnerTexts()).toEqual([expect.stringContaining('Default: '), ADDR.TRON, ADDR.TRON_2, 'Another Tron address…']);
    await to.selectOption(second.id);
    const sent = page.waitForRequest((r) => r.url().endsWith('/merchant/affiliate/payouts') && r.method() === 'POST');
    await page.getByRole('button', { name: 'Request payout' }).click();
    expect((await sent).postDataJSON()).toEqual({ address_id: second.id });
    // Nothing earned yet: the amount is what is refused, beside it.
    expect(await fieldError(page.getByLabel('Amount (USDT)'))).toBe('the minimum payout is 50.00 USDT_TRC20');
    await to.selectOption({ label: 'Another Tron address…' });
    const address = page.getByLabel('Tron address');
    await address.fill('Tnot-an-address');
    await page.getByLabel('Your password').fill(owner.password);
    await page.getByRole('button', { name: 'Request payout' }).click();
    expect(await fieldError(address)).toBe('address is not a valid Tron address');
    await address.fill(ADDR.TRON);
    await page.getByLabel('Your password').fill('not-my-password');
    await page.getByRole('button', { name: 'Request payout' }).click();
    expect(await fieldError(page.getByLabel('Your password'))).toBe('password is incorrect');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('support chat: one\'s own message edited and deleted, the change seen live by a teammate', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const mate = await addMember(t.app, owner.accessToken, 'viewer');
    const { page, errors } = await openAs('/support', owner);
    const other = await openAs('/support', { ...owner, email: mate.email, password: mate.password });
    for (const p of [page, other.page]) await p.waitForFunction(() => document.querySelector('.live-dot.up'), null, WAIT);
    page.on('dialog', (d) => { void d.accept(); });
    await page.getByLabel('Message', { exact: true }).fill('Hello wrold');
    await page.getByRole('button', { name: 'Send' }).click();
    const theirs = other.page.getByRole('log', { name: 'Messages' });
    await theirs.getByText('Hello wrold').waitFor(WAIT);
    // Only the author may edit: the teammate sees no button.
    expect(await theirs.getByRole('button', { name: 'Edit this message' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Edit this message' }).click();
    const box = page.getByLabel('New text', { exact: true });
    await box.fill('');
    await page.getByRole('form', { name: 'Edit message' }).getByRole('button', { name: 'Save' }).click();
    expect(await fieldError(box)).toBe('body is required (up to 4000 characters)');
    await box.fill('Hello world');
    await page.getByRole('form', { name: 'Edit message' }).getByRole('button', { name: 'Save' }).click();
    await page.getByRole('log', { name: 'Messages' }).getByText('Hello world', { exact: true }).waitFor(WAIT);
    await theirs.getByText('Hello world', { exact: true }).waitFor(WAIT);
    await theirs.getByText('· edited').waitFor(WAIT);
    await page.getByRole('button', { name: 'Delete this message' }).click();
    await theirs.getByText('deleted', { exact: true }).waitFor(WAIT);
    expect(await theirs.getByText('Hello world').count()).toBe(0);
    expect([...errors, ...other.errors]).toEqual([]);
    await page.context().close();
    await other.page.context().close();
  });

  it.concurrent('support chat: an owner deletes a teammate\'s message (CONTRACT.md: its author, or an owner), never edits it', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const mate = await addMember(t.app, owner.accessToken, 'finance');
    const posted = await t.app.inject({ method: 'POST', url: '/merchant/support/messages', remoteAddress: randomIp(), headers: tokenHeader(mate.accessToken), payload: { body: 'Posted by finance' } });
    const { page, errors } = await openAs('/support', owner);
    page.on('dialog', (d) => { void d.accept(); });
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('Posted by finance').waitFor(WAIT);
    expect(await log.getByRole('button', { name: 'Edit this message' }).count()).toBe(0);
    await log.getByRole('button', { name: 'Delete this message' }).click();
    await log.getByText('deleted', { exact: true }).waitFor(WAIT);
    const after = (await api(owner, '/merchant/support/messages')).messages.find((m: { id: string }) => m.id === posted.json().message.id);
    expect([after.body, typeof after.deleted_at]).toEqual(['', 'string']);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('a payment\'s page keeps its checkout link when a live update (the webhook form, without it) arrives', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const p = await createPayment(t.app, owner.testKey, { token: 'USDT_TRC20', amount_usd: '19.99' });
    const { page, errors } = await openAs(`/payments/${p.id}?mode=test`, owner);
    await page.waitForFunction(() => document.querySelector('.live-dot.up'), null, WAIT);
    const link = page.getByRole('link', { name: 'Open the checkout page' });
    expect(await link.getAttribute('href')).toBe(p.checkout_url);
    await confirmPayment(t, owner.testKey, p.id);
    await page.getByTestId('payment-status').filter({ hasText: /^confirmed$/ }).waitFor(WAIT);
    await page.getByRole('region', { name: 'Events' }).getByText('payment.confirmed').waitFor(WAIT);
    expect(await link.getAttribute('href')).toBe(p.checkout_url);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('at phone width nothing is wider than the page: figures by day, a notification with an address, a support message with a link', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    for (const token of ['USDT_TRC20', 'ETH', 'BTC']) await confirmPayment(t, owner.testKey, (await createPayment(t.app, owner.testKey, { token, amount_usd: '120.50' })).id);
    await t.app.inject({ method: 'POST', url: '/merchant/payout-addresses?mode=test', remoteAddress: randomIp(), headers: tokenHeader(owner.accessToken), payload: { token: 'ETH', address: ADDR.EVM, password: owner.password } });
    const body = 'Please look at this:\nhttps://example.com/a/very/long/path/without/any/spaces/that/goes/on/and/on/and/on';
    await t.app.inject({ method: 'POST', url: '/merchant/support/messages', remoteAddress: randomIp(), headers: tokenHeader(owner.accessToken), payload: { body } });
    const { page, errors } = await openAs('/?mode=test', owner);
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    await page.getByText('Figures by day').click();
    await page.getByRole('table', { name: 'Confirmed payments by day' }).getByText('$361.50').waitFor(WAIT);
    expect(await overflow()).toBe(0);
    await page.goto(`${t.url}/notifications?mode=test`);
    await page.getByText(ADDR.EVM).waitFor(WAIT);
    expect(await overflow()).toBe(0);
    await page.goto(`${t.url}/support`);
    const message = page.getByRole('log', { name: 'Messages' }).locator('.msg').first();
    await message.waitFor(WAIT);
    expect(await overflow()).toBe(0);
    // The message as written: its line break kept, its link inside its bubble.
    expect(await message.evaluate((m) => m.scrollWidth <= m.clientWidth)).toBe(true);
    expect(await message.getByText('Please look at this:').innerText()).toBe(body);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('developers: webhook deliveries paged by cursor, older and newer, none twice', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    // 120 delivered test deliveries a minute apart, written as the dispatcher writes them.
    const now = Date.now();
    await t.platform.db.orm.insert(deliveries).values(Array.from({ length: 120 }, (_, i) => ({
      id: `dlv_page_${owner.merchant.id}_${i}`, merchantId: owner.merchant.id, livemode: false, target: 'account' as const, url: 'https://example.com/hook', host: 'example.com',
      eventId: `evt_page_${owner.merchant.id}_${i}`, eventType: `payment.n${String(i).padStart(3, '0')}`, payload: '{}', status: 'delivered' as const, attempts: 1, maxAttempts: 7,
      nextAttemptAt: new Date(now - i * 60_000), history: [], createdAt: new Date(now - i * 60_000),
    })));
    const { page, errors } = await openAs('/developers?mode=test', owner);
    const section = page.getByRole('region', { name: 'Webhook deliveries' });
    const events = () => section.locator('tbody tr td:nth-child(2)').allInnerTexts();
    const n = (from: number, count: number) => Array.from({ length: count }, (_, i) => `payment.n${String(from + i).padStart(3, '0')}`);
    await section.locator('tbody tr').first().waitFor(WAIT);
    expect(await events()).toEqual(n(0, 50));
    const pages = section.getByRole('navigation', { name: 'Delivery pages' });
    expect(await pages.getByRole('button', { name: 'Newer' }).isDisabled()).toBe(true);
    await pages.getByRole('button', { name: 'Older' }).click();
    await section.getByText('payment.n050', { exact: true }).waitFor(WAIT);
    expect(await events()).toEqual(n(50, 50));
    await pages.getByRole('button', { name: 'Older' }).click();
    await section.getByText('payment.n100', { exact: true }).waitFor(WAIT);
    expect(await events()).toEqual(n(100, 20));
    expect(await pages.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
    await pages.getByRole('button', { name: 'Newer' }).click();
    await section.getByText('payment.n050', { exact: true }).waitFor(WAIT);
    expect(await events()).toEqual(n(50, 50));
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('stores, a list the API answers whole, shown 50 at a time with a pager', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    for (let i = 0; i < 52; i++) {
      const r = await t.app.inject({ method: 'POST', url: '/merchant/stores', remoteAddress: randomIp(), headers: tokenHeader(owner.accessToken), payload: { name: `Store ${String(i).padStart(2, '0')}` } });
      expect(r.statusCode).toBe(201);
    }
    const { page, errors } = await openAs('/stores', owner);
    const rows = page.getByRole('region', { name: 'Stores' }).locator('tbody tr');
    await rows.first().waitFor(WAIT);
    expect(await rows.count()).toBe(50);
    const pages = page.getByRole('group', { name: 'Stores: pages' });
    expect(await pages.innerText()).toContain('1–50 of 52');
    await pages.getByRole('button', { name: 'Next' }).click();
    await pages.getByText('51–52 of 52').waitFor(WAIT);
    expect(await rows.count()).toBe(2);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('developers: saving the webhook form as shown keeps its URL (no "url is required")', async ({ expect }) => {
    const receiver = await Receiver.start();
    const owner = await signupAccount(t.app);
    const set = await t.app.inject({ method: 'PUT', url: '/merchant/webhook?mode=test', headers: tokenHeader(owner.accessToken), payload: { url: receiver.url } });
    expect(set.statusCode).toBe(200);
    const { page, errors } = await openAs('/developers?mode=test', owner);
    const form = page.getByRole('form', { name: 'Webhook URL' });
    const field = form.getByLabel('Endpoint URL');
    await expect.poll(() => field.inputValue(), WAIT).toBe(receiver.url);
    await form.getByRole('button', { name: 'Save' }).click();
    await page.waitForTimeout(1000);
    expect(await field.getAttribute('aria-invalid')).toBeNull();
    expect(await form.getByRole('alert').count()).toBe(0);
    expect((await api(owner, '/merchant/webhook?mode=test')).webhook.url).toBe(receiver.url);
    expect(errors).toEqual([]);
    await page.context().close();
    await receiver.close();
  });
});
