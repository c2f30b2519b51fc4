// The hosted checkout page's first load failing in Chromium: an answer the API meant for the payer
// (a 4xx other than 404, e.g. a proxy's or the gateway's 429) is shown in the API's words; a 5xx
// or no answer at all keeps the page's own "could not be loaded, trying again" text.
import { beforeAll, describe, it } from 'vitest';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { createPayment } from '../harness/payments.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium } from '../harness/dashboard-chromium.ts';
import { RATE_LIMITED } from '../../src/platform/errors.ts';

const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('checkout page error tests');

describe.skipIf(!hasChromium)('checkout page: a first load that fails, in Chromium', { timeout: 90_000 }, () => {
  const env = dashboardInChromium({ payerViews: true });
  let owner: Account;
  beforeAll(async () => {
    owner = await signupAccount(env.t.app, { merchant_name: 'Errors Shop' });
  });

  it("shows a 4xx's message from the API, and the generic text for a 5xx", async ({ expect }) => {
    const p = await createPayment(env.t.app, owner.testKey, { token: 'ETH' });
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const url = `${env.t.url}/checkout/${p.checkout_token}`;
    let answer = { status: 429, error: RATE_LIMITED };
    await page.route(url, (route) => route.fulfill({ status: answer.status, contentType: 'application/json', body: JSON.stringify({ error: answer.error }) }));
    await page.goto(`${env.t.url}/pay/${p.checkout_token}`);
    await page.locator('#status[data-tone="bad"]').waitFor(WAIT);
    expect(await page.locator('#status').innerText()).toBe(RATE_LIMITED);
    answer = { status: 500, error: 'internal error' };
    await page.reload();
    await page.locator('#status[data-tone="bad"]').waitFor(WAIT);
    expect(await page.locator('#status').innerText()).toBe('The payment could not be loaded. Trying again…');
    await context.close();
  });
});
