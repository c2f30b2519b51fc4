// Dollars in the dashboard (issue: payments list and page showed `$12.5`, `$0`): the API writes
// decimal strings without trailing zeros (CONTRACT "Values and formats"); the pages write every
// dollar figure with two decimals at least, coins as the API gives them.
import { beforeAll, describe, it } from 'vitest';
import { signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { ADMIN } from '../harness/affiliate.ts';
import { ADDR } from '../harness/settlement.ts';
import { createPayment } from '../harness/payments.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium, signInOnPage } from '../harness/dashboard-chromium.ts';
import { usd } from '../../web/dashboard/lib/format.ts';
import { eq } from 'drizzle-orm';
import { payouts } from '../../src/settlement/index.ts';

const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('dashboard money browser tests');

describe.skipIf(!hasChromium)('dashboard dollars in Chromium', { timeout: 120_000 }, () => {
  const env = dashboardInChromium();
  let owner: Account;

  beforeAll(async () => {
    owner = await signupAccount(env.t.app, { merchant_name: 'Dollars' });
  });

  it('writes dollars with two decimals in the payments list and on the payment page', async ({ expect }) => {
    const p = await createPayment(env.t.app, owner.testKey, { token: 'ETH', amount_usd: '12.5', order_id: 'cents-1' });
    expect(p.usd_amount).toBe('12.5');
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${env.t.url}/payments?mode=test`);
    await signInOnPage(page, owner);
    const row = page.getByRole('row').filter({ hasText: 'cents-1' });
    await row.waitFor(WAIT);
    expect(await row.getByRole('cell').nth(3).innerText()).toBe('$12.50');
    await row.getByRole('link').click();
    const details = page.getByTestId('payment-details');
    await details.waitFor(WAIT);
    const text = await details.innerText();
    expect(text).toContain('$12.50');
    expect(text).toContain(`${usd(p.amount_due_usd)} = ${p.crypto_amount} ETH`);
    expect(text).toContain('0 ETH ($0.00)');
    expect(errors).toEqual([]);
    await context.close();
  });

  // The payout quote (GET /merchant/payouts/quote) in words and figures: coins with their symbol,
  // dollars with two decimals, never the API's field names or ids.
  it('shows a payout quote as readable figures', async ({ expect }) => {
    const added = await env.t.app.inject({ method: 'POST', url: '/merchant/payout-addresses', headers: tokenHeader(owner.accessToken), payload: { token: 'USDT_TRC20', address: ADDR.TRON, label: 'Treasury', password: owner.password } });
    expect(added.statusCode).toBe(201);
    const credit = await env.t.app.inject({ method: 'POST', url: '/admin/ledger/adjustments', headers: ADMIN, payload: { merchant_id: owner.merchant.id, livemode: true, token: 'USDT_TRC20', amount: '1000', note: 'opening balance' } });
    expect(credit.statusCode).toBe(201);
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${env.t.url}/money`);
    await signInOnPage(page, owner);
    const form = page.getByRole('form', { name: 'Request a payout' });
    await form.getByLabel('To address').selectOption({ label: 'USDT_TRC20 Treasury' });
    await form.getByLabel('Amount').fill('100');
    await form.getByRole('button', { name: 'Quote' }).click();
    const quote = page.locator('dl[aria-label="Quote"]');
    await quote.waitFor(WAIT);
    const text = await quote.innerText();
    expect(text).not.toMatch(/address id|from token|network_fee|usd_rate|pa_/i);
    expect(text).toContain('100 USDT_TRC20 ($100.00)');
    expect(text).toContain('Network fee');
    expect(text).toMatch(/Sent to the address\s+\d[\d.]* USDT_TRC20 \(\$\d+\.\d{2}\) on tron/);
    expect(text).toContain('1000 USDT_TRC20');
    expect(text).toContain('$10.00');
    await context.close();
  });

  // A USDT payout may draw on any USDT balance (spec 1 "Payouts": `from_token`, `from_chain`); the
  // form offers the USDT balances the merchant holds, leaves the choice to the API by default (the
  // address's own balance, or the fullest USDT one when it is empty), and quotes what is chosen.
  it('lets a payout draw on another USDT balance than the address\'s coin, quoted for it', async ({ expect }) => {
    const m = await signupAccount(env.t.app, { merchant_name: 'Balances' });
    const added = await env.t.app.inject({ method: 'POST', url: '/merchant/payout-addresses', headers: tokenHeader(m.accessToken), payload: { token: 'USDT_BEP20', address: ADDR.EVM, label: 'BSC wallet', password: m.password } });
    expect(added.statusCode).toBe(201);
    for (const [token, amount] of [['USDT_TRC20', '1000'], ['USDT_ERC20', '50'], ['ETH', '1']]) {
      const credit = await env.t.app.inject({ method: 'POST', url: '/admin/ledger/adjustments', headers: ADMIN, payload: { merchant_id: m.merchant.id, livemode: true, token, amount, note: 'opening balance' } });
      expect(credit.statusCode).toBe(201);
    }
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${env.t.url}/money`);
    await signInOnPage(page, m);
    const form = page.getByRole('form', { name: 'Request a payout' });
    await form.getByLabel('To address').selectOption({ label: 'USDT_BEP20 BSC wallet' });
    const from = form.getByLabel('From balance');
    await from.waitFor(WAIT);
    // Only the USDT balances held (none of USDT_BEP20, and ETH cannot go to a USDT address).
    const offered = await from.locator('option').allInnerTexts();
    expect(offered.slice(1).sort()).toEqual(['USDT_ERC20 on ethereum: 50 available', 'USDT_TRC20 on tron: 1000 available']);
    expect(await from.inputValue()).toBe('');
    const quote = page.locator('dl[aria-label="Quote"]');
    await form.getByRole('button', { name: 'Quote' }).click();
    await quote.waitFor(WAIT);
    expect(await quote.innerText()).toContain('USDT_TRC20 on tron, 1000 USDT_TRC20 available');
    await from.selectOption({ label: 'USDT_ERC20 on ethereum: 50 available' });
    await form.getByLabel('Amount').fill('20');
    await form.getByRole('button', { name: 'Quote' }).click();
    await expect.poll(() => quote.innerText().catch(() => ''), WAIT).toContain('USDT_ERC20 on ethereum, 50 USDT_ERC20 available');
    expect(await quote.innerText()).toContain('20 USDT_ERC20 ($20.00)');
    await form.getByRole('button', { name: 'Request payout' }).click();
    const row = page.getByRole('table', { name: 'Payouts' }).getByRole('row').nth(1);
    await expect.poll(() => row.innerText().catch(() => ''), WAIT).toContain('20 USDT_ERC20');
    const list = await env.t.app.inject({ method: 'GET', url: '/merchant/payouts', headers: tokenHeader(m.accessToken) });
    expect(list.json().payouts.map((p: { token: string; from_token: string; amount: string }) => [p.token, p.from_token, p.amount])).toEqual([['USDT_BEP20', 'USDT_ERC20', '20']]);
    await context.close();
  });

  // spec 6.3 `payout_address:update` (everyone): an address a teammate adds (or another tab) is
  // offered for a payout without reloading the page, as the addresses table already shows it.
  it('offers for a payout an address added elsewhere, without a reload', async ({ expect }) => {
    const m = await signupAccount(env.t.app, { merchant_name: 'Teammates' });
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${env.t.url}/money`);
    await signInOnPage(page, m);
    await page.waitForFunction(() => document.querySelector('.live-dot.up'), null, WAIT);
    const to = page.getByRole('form', { name: 'Request a payout' }).getByLabel('To address');
    await to.waitFor(WAIT);
    const added = await env.t.app.inject({ method: 'POST', url: '/merchant/payout-addresses', headers: tokenHeader(m.accessToken), payload: { token: 'USDT_TRC20', address: ADDR.TRON_3, label: 'Added elsewhere', password: m.password } });
    expect(added.statusCode).toBe(201);
    await page.getByRole('table', { name: 'Payout addresses' }).getByRole('row').filter({ hasText: 'Added elsewhere' }).waitFor(WAIT);
    await expect.poll(() => to.locator('option').allInnerTexts(), WAIT).toContain('USDT_TRC20 Added elsewhere');
    await context.close();
  });

  // spec 2 Merchant payout object: `requested_by` is a user id, `scheduler` or `auto` (spec 1
  // Settlement 6: a USDT balance paid out by itself): the table says who asked for each payout.
  it('says who requested each payout: you, a teammate, the schedule or the service by itself', async ({ expect }) => {
    const m = await signupAccount(env.t.app, { merchant_name: 'Requesters' });
    const add = await env.t.app.inject({ method: 'POST', url: '/merchant/payout-addresses', headers: tokenHeader(m.accessToken), payload: { token: 'USDT_TRC20', address: ADDR.TRON, password: m.password } });
    const credit = await env.t.app.inject({ method: 'POST', url: '/admin/ledger/adjustments', headers: ADMIN, payload: { merchant_id: m.merchant.id, livemode: true, token: 'USDT_TRC20', amount: '1000', note: 'opening balance' } });
    expect([add.statusCode, credit.statusCode]).toEqual([201, 201]);
    const ids: string[] = [];
    for (const amount of ['20', '30', '40', '50']) {
      const r = await env.t.app.inject({ method: 'POST', url: '/merchant/payouts', headers: tokenHeader(m.accessToken), payload: { address_id: add.json().address.id, amount } });
      expect(r.statusCode, r.body).toBe(201);
      ids.push(r.json().payout.id);
    }
    // The other requesters, written as the scheduler, the service and a teammate would have.
    for (const [i, by] of [[1, 'scheduler'], [2, 'auto'], [3, 'usr_someone_else']] as const) {
      await env.t.platform.db.orm.update(payouts).set({ requestedBy: by }).where(eq(payouts.id, ids[i]));
    }
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${env.t.url}/money`);
    await signInOnPage(page, m);
    const table = page.getByRole('table', { name: 'Payouts' });
    const byAmount = async () => Object.fromEntries((await table.getByRole('row').allInnerTexts()).slice(1).map((r) => r.split('\t')).map((c) => [c[2], c[3]]));
    await expect.poll(byAmount, WAIT).toEqual({
      '20 USDT_TRC20': 'you', '30 USDT_TRC20': 'the payout schedule', '40 USDT_TRC20': 'the service (balance paid out by itself)', '50 USDT_TRC20': 'a teammate',
    });
    await context.close();
  });
});
