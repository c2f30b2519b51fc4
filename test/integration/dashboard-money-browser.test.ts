// Dollars in the dashboard (issue: payments list and page showed `$12.5`, `$0`): the API writes
// decimal strings without trailing zeros (CONTRACT "Values and formats"); the pages write every
// dollar figure with two decimals at least, coins as the API gives them.
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openTestDatabase } from '../harness/databases.ts';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { createPayment } from '../harness/payments.ts';
import { startSocketApp, type SocketApp } from './realtime-support.ts';
import { chromiumPresent, launchChromium } from '../harness/chromium.ts';
import { usd } from '../../web/dashboard/lib/format.ts';

const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('dashboard money browser tests');

describe.skipIf(!hasChromium)('dashboard dollars in Chromium', { timeout: 120_000 }, () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let t: SocketApp;
  let owner: Account;
  let browser: Browser;

  beforeAll(async () => {
    opened = await openTestDatabase('pglite');
    t = await startSocketApp(opened.db);
    owner = await signupAccount(t.app, { merchant_name: 'Dollars' });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await opened?.dispose();
  });

  it('writes dollars with two decimals in the payments list and on the payment page', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'ETH', amount_usd: '12.5', order_id: 'cents-1' });
    expect(p.usd_amount).toBe('12.5');
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${t.url}/payments?mode=test`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
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
});
