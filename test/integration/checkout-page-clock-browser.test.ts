// The hosted checkout page keeps the gateway's view of time and of the payment: a customer's
// device clock minutes off does not move the countdown (it is read against the gateway's `Date`),
// and a poll's answer read before a socket update does not replace the newer state the socket gave.
import { beforeAll, describe, it } from 'vitest';
import type { Page } from 'playwright-core';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { createPayment } from '../harness/payments.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium } from '../harness/dashboard-chromium.ts';
import { toUnits } from '../../web/checkout/lib/amounts.ts';

const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('checkout page clock tests');

/** The countdown's m:ss (or h:mm:ss) in seconds. */
const seconds = (text: string): number => text.split(':').map(Number).reduce((acc, n) => acc * 60 + n, 0);

describe.skipIf(!hasChromium)('checkout page: the gateway\'s clock and the newest state, in Chromium', { timeout: 90_000 }, () => {
  const env = dashboardInChromium({ payerViews: true });
  let owner: Account;
  beforeAll(async () => {
    owner = await signupAccount(env.t.app, { merchant_name: 'Clockwork Shop' });
  });

  async function open(token: string, deviceAheadMs: number): Promise<Page> {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US' });
    // Date and the timers of the page start deviceAheadMs off the real time and then run as usual.
    await context.clock.install({ time: Date.now() + deviceAheadMs });
    const page = await context.newPage();
    return page;
  }

  it.concurrent('a device clock 10 minutes fast: the countdown still shows the time the gateway gives', async ({ expect }) => {
    const p = await createPayment(env.t.app, owner.testKey, { token: 'ETH' });
    const page = await open(p.checkout_token, 10 * 60_000);
    await page.goto(`${env.t.url}/pay/${p.checkout_token}`);
    const countdown = page.locator('#countdown');
    await countdown.waitFor(WAIT);
    const shown = seconds(await countdown.innerText());
    const left = (Date.parse(p.expires_at) - Date.now()) / 1000;
    expect(Math.abs(shown - left)).toBeLessThanOrEqual(3);
    await page.context().close();
  });

  it.concurrent('a poll answer read before a socket update arrives after it: the newer state stays on the page', async ({ expect }) => {
    const p = await createPayment(env.t.app, owner.testKey, { token: 'ETH' });
    const page = await open(p.checkout_token, 0);
    const url = `${env.t.url}/checkout/${p.checkout_token}`;
    let gets = 0;
    let pollRead!: () => void;
    const pollWasRead = new Promise<void>((r) => { pollRead = r; });
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    // The boot read goes through; the first poll is read at once (pending) and answered only later.
    await page.route(url, async (route) => {
      if (route.request().method() !== 'GET' || ++gets === 1) return route.continue();
      const response = await route.fetch();
      pollRead();
      await released;
      await route.fulfill({ response });
    });
    await page.goto(`${env.t.url}/pay/${p.checkout_token}`);
    await page.locator('#status[data-status="pending"]').waitFor(WAIT);
    // the next poll is due within 30 s of the page's clock (4 s while the socket is not up yet;
    // then the state the socket gives on subscribing is the newer one the poll must not replace)
    await page.clock.fastForward(30_000);
    await pollWasRead;
    await env.t.services.payments.intake.recordDeposit({ paymentId: p.id }, { txId: 'cd'.repeat(32), token: 'ETH', amount: toUnits(p.crypto_amount, 18)!, confirmations: 0, simulated: true, at: new Date() });
    await page.locator('#status[data-status="detecting"]').waitFor(WAIT);
    const answered = page.waitForEvent('requestfinished', { predicate: (r) => r.url() === url && r.method() === 'GET' });
    release();
    await answered;
    // the page has the poll's answer (pending) in hand: give it the time to show it, were it to
    await page.waitForTimeout(1_000);
    expect(await page.locator('#status').getAttribute('data-status')).toBe('detecting');
    await page.context().close();
  });
});
