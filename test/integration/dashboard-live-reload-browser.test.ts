// Lists that reload on a socket event (issue: the payouts list, on page 2, went back to page 1's
// rows on `payout:update` while its pager still said page 2): a reload asks for the page and the
// filters the list shows when the event comes, not those it showed when the listener was added.
import { beforeAll, describe, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { signupAccount, tokenHeader, uid, type Account } from '../harness/accounts.ts';
import { Receiver } from '../harness/webhooks.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium, signInOnPage } from '../harness/dashboard-chromium.ts';
import { appendEvent } from '../../src/events/index.ts';
import { newId } from '../../src/platform/ids.ts';
import { dec } from '../../src/money/decimal.ts';
import { payouts } from '../../src/settlement/index.ts';
import { deliveries } from '../../src/webhooks/index.ts';
import { ADDR } from '../harness/settlement.ts';

const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('dashboard live reload browser tests');

describe.skipIf(!hasChromium)('dashboard lists reloaded by socket events in Chromium', { timeout: 120_000 }, () => {
  const env = dashboardInChromium();
  let owner: Account;
  const ids: string[] = [];

  beforeAll(async () => {
    owner = await signupAccount(env.t.app, { merchant_name: 'Reloads' });
    // 55 sent payouts, a second apart: page 1 (50 a page) the newest, page 2 the five oldest
    const start = Date.now() - 3_600_000;
    for (let i = 0; i < 55; i++) {
      const at = new Date(start + i * 1000);
      const id = newId('po', at);
      ids.push(id);
      await env.t.platform.db.orm.insert(payouts).values({
        id, merchantId: owner.merchant.id, livemode: true, token: 'USDT_BEP20', chain: 'bsc', fromToken: 'USDT_BEP20', fromChain: 'bsc',
        amount: 40_000_000_000_000_000_000n, networkFee: 0n, sendAmount: 40_000_000_000_000_000_000n, amountUsd: dec('40'), networkFeeUsd: dec('0'),
        sendAmountUsd: dec('40'), usdRate: dec('1'), addressId: `pa_${uid()}`, address: '0x000000000000000000000000000000000000dEaD',
        status: 'sent', requestedBy: owner.merchant.id, txId: `tx-old-${i}`, createdAt: at, updatedAt: at, approvedAt: at, sentAt: at,
      });
    }
  });

  it('the payouts list on page 2 reloads page 2 on payout:update', async ({ expect }) => {
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${env.t.url}/money`);
    await signInOnPage(page, owner);
    const list = page.getByRole('region', { name: 'Payouts (live)' });
    await list.getByText('tx-old-54').waitFor(WAIT);
    await list.getByRole('button', { name: /next/i }).click();
    await list.getByText('tx-old-0', { exact: true }).waitFor(WAIT);
    // the socket is up: the change's event cannot come before the page listens for it
    await page.getByText('Live updates on').waitFor(WAIT);
    // the oldest payout changes (its transaction id), and the socket tells the dashboard
    await env.t.platform.db.transaction(async (tx) => {
      await tx.update(payouts).set({ txId: 'tx-new-0' }).where(eq(payouts.id, ids[0]!));
      await appendEvent(tx, { type: 'payout:update', livemode: true, merchantId: owner.merchant.id, data: { id: ids[0] }, at: new Date() });
    });
    await list.getByText('tx-new-0').waitFor(WAIT);
    expect(await list.getByText('tx-old-54').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  // Spec 6.3: `store:update` (everyone), `api_key:update` and `webhook:update` (owners, developers)
  // tell the pages showing them; a teammate's change shows without a reload.
  it('the stores list follows store:update', async ({ expect }) => {
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${env.t.url}/stores`);
    await signInOnPage(page, owner);
    const list = page.getByRole('region', { name: 'Stores' });
    await list.getByText(/No store|in all/).first().waitFor(WAIT);
    // the socket is up: the change's event cannot come before the page listens for it
    await page.getByText('Live updates on').waitFor(WAIT);
    const made = await env.t.app.inject({ method: 'POST', url: '/merchant/stores', headers: tokenHeader(owner.accessToken), payload: { name: 'Made by a teammate' } });
    expect(made.statusCode).toBe(201);
    await list.getByRole('cell', { name: 'Made by a teammate', exact: true }).waitFor(WAIT);
    await context.close();
  });

  it('the API keys and the webhook of the developers page follow api_key:update and webhook:update', async ({ expect }) => {
    const receiver = await Receiver.start();
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${env.t.url}/developers?mode=test`);
    await signInOnPage(page, owner);
    const keys = page.getByRole('region', { name: 'API keys (test)' });
    await keys.getByRole('cell', { name: 'default' }).first().waitFor(WAIT);
    const hook = page.getByRole('region', { name: 'Webhook (test)' });
    await hook.getByLabel('Endpoint URL').waitFor(WAIT);
    // the socket is up: the change's event cannot come before the page listens for it
    await page.getByText('Live updates on').waitFor(WAIT);
    const key = await env.t.app.inject({ method: 'POST', url: '/merchant/api-keys?mode=test', headers: tokenHeader(owner.accessToken), payload: { label: 'teammate-key' } });
    expect(key.statusCode).toBe(201);
    await keys.getByRole('cell', { name: 'teammate-key' }).waitFor(WAIT);
    const set = await env.t.app.inject({ method: 'PUT', url: '/merchant/webhook?mode=test', headers: tokenHeader(owner.accessToken), payload: { url: receiver.url } });
    expect(set.statusCode).toBe(200);
    await expect.poll(() => hook.getByLabel('Endpoint URL').inputValue(), WAIT).toBe(receiver.url);
    await context.close();
    await receiver.close();
  });

  // The overview's setup checklist follows the events that change its items (spec 6.3
  // `webhook:update`, `payout_address:update`, `api_key:update`, `dashboard:update`): a teammate's
  // webhook or payout address ticks its item without a reload.
  it("the overview's setup checklist follows webhook:update and payout_address:update", async ({ expect }) => {
    const receiver = await Receiver.start();
    const fresh = await signupAccount(env.t.app, { merchant_name: 'Checklist' });
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${env.t.url}/`);
    await signInOnPage(page, fresh);
    const list = page.getByRole('list', { name: 'Setup checklist' });
    const hookItem = list.getByRole('listitem').filter({ hasText: 'Webhook URL set' });
    const addrItem = list.getByRole('listitem').filter({ hasText: 'Payout address added' });
    await hookItem.getByRole('link', { name: 'Set it up' }).waitFor(WAIT);
    await page.getByText('Live updates on').waitFor(WAIT);
    const set = await env.t.app.inject({ method: 'PUT', url: '/merchant/webhook', headers: tokenHeader(fresh.accessToken), payload: { url: receiver.url } });
    expect(set.statusCode).toBe(200);
    const added = await env.t.app.inject({ method: 'POST', url: '/merchant/payout-addresses', headers: tokenHeader(fresh.accessToken), payload: { token: 'USDT_TRC20', address: ADDR.TRON, password: fresh.password } });
    expect(added.statusCode).toBe(201);
    await expect.poll(() => hookItem.getAttribute('class'), WAIT).toBe('done');
    await expect.poll(() => addrItem.getAttribute('class'), WAIT).toBe('done');
    await context.close();
    await receiver.close();
  });

  // A delivery's attempts go on after the payment's event (spec 6.3 `webhook:delivery`, on every
  // attempt): the payment's page shows the outcome without a reload.
  it("a payment's page follows its webhook deliveries (webhook:delivery)", async ({ expect }) => {
    const made = await env.t.app.inject({ method: 'POST', url: '/merchant/payments?mode=test', headers: tokenHeader(owner.accessToken), payload: { order_id: `dlv-${uid()}`, amount_usd: '25', token: 'USDT_TRC20' } });
    expect(made.statusCode).toBe(201);
    const pay = made.json() as { id: string };
    const id = `dlv_live_${uid()}`;
    const now = new Date();
    await env.t.platform.db.orm.insert(deliveries).values({
      id, merchantId: owner.merchant.id, livemode: false, target: 'account' as const, url: 'https://example.com/hook', host: 'example.com', paymentId: pay.id,
      eventId: `evt_live_${uid()}`, eventType: 'payment.detecting', payload: '{}', status: 'pending' as const, attempts: 0, maxAttempts: 7,
      nextAttemptAt: now, history: [], createdAt: now,
    });
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${env.t.url}/payments/${pay.id}?mode=test`);
    await signInOnPage(page, owner);
    const section = page.getByRole('region', { name: 'Webhook deliveries' });
    await section.getByText('0/7').waitFor(WAIT);
    // the socket is up: the change's event cannot come before the page listens for it
    await page.getByText('Live updates on').waitFor(WAIT);
    await env.t.platform.db.transaction(async (tx) => {
      await tx.update(deliveries).set({ status: 'delivered', attempts: 1, lastStatusCode: 200, deliveredAt: new Date() }).where(eq(deliveries.id, id));
      await appendEvent(tx, { type: 'webhook:delivery', livemode: false, merchantId: owner.merchant.id, data: { id, livemode: false, status: 'delivered', attempts: 1 }, at: new Date() });
    });
    await section.getByText('1/7').waitFor(WAIT);
    expect(await section.getByText('delivered').count()).toBeGreaterThan(0);
    await context.close();
  });
});
