// Dollars in the dashboard (issue: payments list and page showed `$12.5`, `$0`): the API writes
// decimal strings without trailing zeros (CONTRACT "Values and formats"); the pages write every
// dollar figure with two decimals at least, coins as the API gives them.
import { beforeAll, describe, it } from 'vitest';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { createPayment } from '../harness/payments.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium, signInOnPage } from '../harness/dashboard-chromium.ts';
import { usd } from '../../web/dashboard/lib/format.ts';

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
});
