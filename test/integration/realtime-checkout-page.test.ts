// The hosted checkout page in Debian's Chromium (spec 1 "Surfaces", issue 21): every state of a
// payment driven by test payments and their simulations, two languages, keyboard use, contrast in
// light and dark, phone and desktop layouts. One browser for the file; the tests run side by side,
// each in a context of its own. Screenshots at 360 px and desktop width go to
// test-artifacts/checkout/ (and, with UPDATE_DOCS_SCREENSHOTS=1, the README's to docs/checkout/).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { openTestDatabase } from '../harness/databases.ts';
import { keyHeader, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { createPayment, type Json } from '../harness/payments.ts';
import { PROJECT_ROOT } from '../harness/node.ts';
import { startSocketApp, type SocketApp } from './realtime-support.ts';
import { foundOrNull } from '../../src/realtime/index.ts';
import { toUnits } from '../../web/checkout/lib/amounts.ts';
import { chromiumPresent, launchChromium } from '../harness/chromium.ts';

const ARTIFACTS = path.join(PROJECT_ROOT, 'test-artifacts', 'checkout');
const DOCS = path.join(PROJECT_ROOT, 'docs', 'checkout');
const WIDTHS = { mobile: { width: 360, height: 780 }, desktop: { width: 1280, height: 860 } };
/** The README shows every state on a phone, and these also on a desktop. */
const DOCS_DESKTOP = new Set(['6-xrp-tag', '13-dark']);
const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('checkout page browser tests');

// Each test waits for a browser and simulated steps on a machine the tests share: a minute and a half.
describe.skipIf(!hasChromium)('hosted checkout page in Chromium', { timeout: 90_000 }, () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let t: SocketApp;
  let owner: Account;
  let browser: Browser;

  beforeAll(async () => {
    opened = await openTestDatabase('pglite');
    t = await startSocketApp(opened.db, { env: { SIMULATION_STEP_MS: '700' } });
    // The real payer view, not the fake one of the socket tests.
    t.services.realtime.use({ checkout: { payerViewByToken: (tok) => foundOrNull(t.services.payments.checkoutView(tok)) } });
    t.services.payments.timers.start();
    owner = await signupAccount(t.app, { merchant_name: 'Café Olé' });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    if (process.env.UPDATE_DOCS_SCREENSHOTS) fs.mkdirSync(DOCS, { recursive: true });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.services.payments.timers.stop();
    await t?.close();
    await opened?.dispose();
  });

  /** A page in a context of its own (language, colour scheme, clipboard), with its errors kept. */
  async function open(token: string, opts: BrowserContextOptions = {}): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: WIDTHS.mobile, locale: 'en-US', ...opts });
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${t.url}/pay/${token}`);
    return { page, errors };
  }

  /** open(), once the deposit address is on the page. */
  async function openPaying(token: string, opts: BrowserContextOptions = {}): Promise<{ page: Page; errors: string[] }> {
    const opened = await open(token, opts);
    await addressShown(opened.page);
    return opened;
  }
  const addressShown = (page: Page) => page.locator('#address').filter({ hasText: /\S/ }).waitFor(WAIT);

  async function close(page: Page): Promise<void> {
    await page.context().close();
  }

  /** Both widths; the README's states are also written to docs/ on request. */
  async function shoot(page: Page, name: string): Promise<void> {
    for (const [label, size] of Object.entries(WIDTHS)) {
      await page.setViewportSize(size);
      const file = `${name}-${label}.png`;
      await page.screenshot({ path: path.join(ARTIFACTS, file), fullPage: true });
      if (process.env.UPDATE_DOCS_SCREENSHOTS && (label === 'mobile' || DOCS_DESKTOP.has(name))) fs.copyFileSync(path.join(ARTIFACTS, file), path.join(DOCS, file));
    }
    await page.setViewportSize(WIDTHS.mobile);
  }

  const simulate = async (p: Json, outcome: string, key = owner.testKey) => {
    const res = await t.app.inject({ method: 'POST', url: `/v1/payments/${p.id}/simulate`, headers: keyHeader(key), payload: { outcome } });
    if (res.statusCode !== 200) throw new Error(`simulate ${outcome}: ${res.statusCode} ${res.body}`);
  };
  const status = (page: Page, s: string) => page.locator(`#status[data-status="${s}"]`).waitFor(WAIT);
  /** The text as shown (layout-aware), spaces collapsed. */
  const text = async (page: Page, selector: string) => (await page.locator(selector).innerText()).replace(/\s+/g, ' ').trim();

  it.concurrent('choose a coin by keyboard, see how to pay, and follow it live to confirmed', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: undefined, amount_usd: '25', description: 'Two books', success_url: 'https://shop.example/thanks', cancel_url: 'https://shop.example/cart' });
    const { page, errors } = await open(p.checkout_token);
    const websockets: string[] = [];
    page.on('websocket', (ws) => websockets.push(ws.url()));
    await page.locator('#coins button').first().waitFor(WAIT);
    expect(await text(page, 'h1')).toBe('Pay Café Olé');
    expect(await text(page, '#description')).toBe('Two books');
    expect(await text(page, '#status')).toBe('Choose a coin to pay with.');
    expect(await page.locator('#test-banner').isVisible()).toBe(true);
    expect(await text(page, '#test-banner')).toBe('Test mode: no real coins move. Use the simulate panel below.');
    expect(await page.locator('#coins button').count()).toBe((p.token_options as unknown[]).length);
    // The network beside every coin, a logo drawn in the bundle.
    expect(await text(page, '#coins button[data-token="USDT_TRC20"]')).toMatch(/^USDT on Tron \(TRC-20\) \$\d+\.\d\d$/);
    expect(await page.locator('#coins button[data-token="USDT_BEP20"] svg.logo').count()).toBe(1);
    await shoot(page, '1-choose');

    // Keyboard only: Tab to the ETH button, Enter; the instructions take the focus.
    for (let i = 0; i < 40 && !(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.token === 'ETH')); i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.locator('#address').filter({ hasText: /0x[0-9a-fA-F]{40}/ }).waitFor(WAIT);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('pay-title');
    await page.waitForFunction(() => (document.getElementById('qr') as HTMLImageElement).naturalWidth > 0);
    const view = await (await fetch(`${t.url}/checkout/${p.checkout_token}`)).json();
    expect(await text(page, '#network-rule')).toBe('ETH on Ethereum: send only on Ethereum.');
    expect(await text(page, '#amount')).toBe(`${view.crypto_amount} ETH`);
    // a test payment: no wallet link (its address is watched by nothing; wallet-uri.test.ts has the links)
    expect(await page.locator('#wallet-link').count()).toBe(0);
    expect(await text(page, '#countdown')).toMatch(/^1[45]:\d\d$/);
    expect(await page.locator('#tag-field').count()).toBe(0);
    await shoot(page, '2-pending');

    // Every status the page announces, in order, without a reload.
    await page.evaluate(() => {
      const w = window as unknown as { marker: number; seen: string[] };
      w.marker = 42;
      w.seen = [];
      const el = document.getElementById('status')!;
      new MutationObserver(() => { const s = document.getElementById('status')?.textContent ?? ''; if (w.seen[w.seen.length - 1] !== s) w.seen.push(s); })
        .observe(el.parentElement!, { childList: true, characterData: true, subtree: true });
    });
    // The deposit as a chain watcher reports it: seen, confirmed further, then final. Each step
    // holds until the next, so the page is looked at in each.
    const ref = { paymentId: p.id };
    const txId = 'ab'.repeat(32);
    await t.services.payments.intake.recordDeposit(ref, { txId, token: 'ETH', amount: toUnits(view.crypto_amount, 18)!, confirmations: 0, simulated: true, at: new Date() });
    await status(page, 'detecting');
    expect(await text(page, '#confirmations-text')).toBe('0 of 12');
    expect(await page.locator('#confirmations-bar').getAttribute('max')).toBe('12');
    expect(await page.locator('#countdown').count()).toBe(0);
    expect(await page.locator('#address').count()).toBe(0);
    await t.services.payments.intake.updateConfirmations(ref, txId, 5, new Date());
    await page.locator('#confirmations-text', { hasText: '5 of 12' }).waitFor(WAIT);
    expect(await page.locator('#confirmations-bar').evaluate((el) => (el as HTMLProgressElement).value)).toBe(5);
    await shoot(page, '3-detecting');
    await t.services.payments.intake.markFinal(ref, txId, new Date());
    await status(page, 'confirmed');
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    expect(seen).toContain('Payment received. Waiting for network confirmations.');
    expect(seen[seen.length - 1]).toBe('Payment confirmed. Thank you!');
    expect(await page.locator('#status').getAttribute('aria-live')).toBe('polite');
    expect(await text(page, '#success')).toBe('Return to Café Olé');
    expect(await page.locator('#success').getAttribute('href')).toBe('https://shop.example/thanks');
    expect(page.url()).toContain('/pay/');
    expect(websockets.some((u) => u.includes('/socket.io/'))).toBe(true);
    expect(errors).toEqual([]);
    await shoot(page, '4-confirmed');
    await close(page);
  });

  it.concurrent('partially paid: what is still due, to copy; copy buttons say they copied', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'LTC' });
    const { page } = await openPaying(p.checkout_token);
    await simulate(p, 'partially_paid');
    await status(page, 'partially_paid');
    const view = await (await fetch(`${t.url}/checkout/${p.checkout_token}`)).json();
    expect(await text(page, '#pay-title')).toBe('Send the rest');
    expect(await text(page, '#amount-label')).toBe('Still due');
    const rest = (await text(page, '#amount'))!.replace(/ LTC$/, '');
    // crypto_amount − received_amount, exactly, in litoshi.
    const litoshi = (s: string) => BigInt(s.replace(/^(\d+)(?:\.(\d*))?$/, (_m, w: string, f = '') => w + f.padEnd(8, '0')));
    expect(litoshi(rest)).toBe(litoshi(view.crypto_amount) - litoshi(view.received_amount));
    expect(await text(page, '#received')).toBe(`Received so far: ${view.received_amount} LTC`);
    // a test payment: no wallet link (its address is watched by nothing; wallet-uri.test.ts has the links)
    expect(await page.locator('#wallet-link').count()).toBe(0);

    const copy = page.locator('button[data-copy="amount"]');
    await copy.click();
    await page.locator('button[data-copy="amount"]', { hasText: 'Copied' }).waitFor(WAIT);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(rest);
    expect(await text(page, '#announce')).toBe('Amount copied');
    await page.locator('button[data-copy="address"]').click();
    await page.locator('#announce', { hasText: 'Address copied' }).waitFor(WAIT);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(view.deposit_address);
    await shoot(page, '5-partially-paid');
    // The label goes back after a moment.
    await page.locator('button[data-copy="amount"]', { hasText: /^Copy$/ }).waitFor(WAIT);
    await close(page);
  });

  it.concurrent('XRP: the tag as prominent as the address, with its warning; expired: the cancel link and late deposits', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'XRP', amount_usd: '25', cancel_url: 'https://shop.example/cart' });
    const { page } = await open(p.checkout_token);
    await page.locator('#tag-field').waitFor(WAIT);
    // The payment was fetched once, while the script loaded (the HTML's preload), not again as the
    // page started. A later read can only be the 4-second poll of a page whose socket is not up yet
    // (live.ts), which a loaded machine (CI runs files side by side) can reach before this look.
    const reads = await page.evaluate((tok) => performance.getEntriesByType('resource')
      .filter((e) => new URL(e.name).pathname === `/checkout/${tok}`)
      .map((e) => ({ by: (e as PerformanceResourceTiming).initiatorType, at: e.startTime })), p.checkout_token);
    expect(reads[0]?.by).toBe('link');
    for (const later of reads.slice(1)) expect(later.at - reads[0].at).toBeGreaterThanOrEqual(4000);
    expect(await text(page, '#tag')).toBe(String(p.destination_tag));
    const size = (sel: string) => page.locator(sel).evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
    expect(await size('#tag')).toBeGreaterThanOrEqual(await size('#address'));
    expect(await text(page, '#tag-warning')).toBe('Enter this destination tag in your wallet. An XRP payment without it is not credited to this order.');
    // a test payment: no wallet link (its address is watched by nothing; wallet-uri.test.ts has the links)
    expect(await page.locator('#wallet-link').count()).toBe(0);
    await shoot(page, '6-xrp-tag');

    await simulate(p, 'expired');
    await status(page, 'expired');
    expect(await text(page, '#status')).toBe('This payment expired.');
    expect(await text(page, '#closed-body')).toBe('No payment arrived before the deadline.');
    expect(await text(page, '#late-note')).toMatch(/^Sent coins already\? A deposit that arrives by .+ still counts/);
    expect(await page.locator('#cancel').getAttribute('href')).toBe('https://shop.example/cart');
    expect(await text(page, '#cancel')).toBe('Back to Café Olé');
    expect(await page.locator('#success').count()).toBe(0);
    expect(await page.locator('#simulate').count()).toBe(0);
    // no simulate panel on a closed payment: the banner names none
    expect(await text(page, '#test-banner')).toBe('Test mode: no real coins move.');
    await shoot(page, '7-expired');
    await close(page);
  });

  it.concurrent('underpaid: what arrived, and how the rest still completes it within 24 hours', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'BTC', cancel_url: 'https://shop.example/cart' });
    const { page } = await openPaying(p.checkout_token);
    await simulate(p, 'underpaid');
    await status(page, 'underpaid');
    const view = await (await fetch(`${t.url}/checkout/${p.checkout_token}`)).json();
    expect(await text(page, '#closed-body')).toBe(`Only ${view.received_amount} BTC of ${view.crypto_amount} BTC arrived before the deadline.`);
    expect(await text(page, '#late-note')).toMatch(/^Sending the remaining [\d.]+ BTC to the same address by .+ completes the payment\. Otherwise, ask Café Olé about the amount already sent\.$/);
    expect(await text(page, '#address')).toBe(view.deposit_address);
    expect(await page.locator('#cancel').getAttribute('href')).toBe('https://shop.example/cart');
    await shoot(page, '8-underpaid');
    await close(page);
  });

  it.concurrent('opened after the 24 hours a late deposit counts: no deadline in the past, no address to send the rest to', async ({ expect }) => {
    const underpaid = await createPayment(t.app, owner.testKey, { token: 'BTC', cancel_url: 'https://shop.example/cart' });
    const expired = await createPayment(t.app, owner.testKey, { token: 'ETH', cancel_url: 'https://shop.example/cart' });
    await simulate(underpaid, 'underpaid');
    await simulate(expired, 'expired');
    /**
     * The payer comes back to the link 25 hours after its deadline: the page's clock, and the
     * gateway's as the page learns it (the `Date` of its answers), are moved; the payment is the server's.
     */
    const openLater = async (p: Json): Promise<Page> => {
      const context = await browser.newContext({ viewport: WIDTHS.mobile, locale: 'en-US' });
      const page = await context.newPage();
      const later = Date.parse(p.expires_at as string) + 25 * 3600_000;
      await page.clock.install({ time: later });
      await page.route(`${t.url}/checkout/**`, async (route) => {
        const response = await route.fetch();
        await route.fulfill({ response, headers: { ...response.headers(), date: new Date(later).toUTCString() } });
      });
      await page.goto(`${t.url}/pay/${p.checkout_token}`);
      return page;
    };

    const late = await openLater(underpaid);
    await status(late, 'underpaid');
    const view = await (await fetch(`${t.url}/checkout/${underpaid.checkout_token}`)).json();
    expect(await text(late, '#closed-body')).toBe(`Only ${view.received_amount} BTC of ${view.crypto_amount} BTC arrived before the deadline.`);
    // Sending the rest now would not complete the payment: neither asked for nor where to send it.
    expect(await text(late, '#late-note')).toBe('Ask Café Olé about the amount already sent.');
    expect(await late.locator('#address').count()).toBe(0);
    expect(await late.locator('#amount').count()).toBe(0);
    expect(await late.locator('#cancel').getAttribute('href')).toBe('https://shop.example/cart');
    await close(late);

    const gone = await openLater(expired);
    await status(gone, 'expired');
    expect(await text(gone, '#closed-body')).toBe('No payment arrived before the deadline.');
    expect(await gone.locator('#late-note').count()).toBe(0);
    await close(gone);
  });

  it.concurrent('failed: nothing was credited, and whom to contact', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'DOGE', amount_usd: '25', cancel_url: 'https://shop.example/cart' });
    const { page } = await openPaying(p.checkout_token);
    await simulate(p, 'failed');
    await status(page, 'failed');
    expect(await text(page, '#status')).toBe('This payment failed.');
    expect(await text(page, '#closed-body')).toBe('The coins seen on the network never became final (the transaction was dropped or replaced), so nothing was credited.');
    expect(await text(page, '#late-note')).toBe('If your wallet shows the coins as sent, contact Café Olé with the link of this page.');
    expect(await page.locator('#cancel').isVisible()).toBe(true);
    await close(page);
  });

  it.concurrent('overpaid: confirmed, with everything that arrived shown', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'LTC', success_url: 'https://shop.example/thanks' });
    const { page } = await openPaying(p.checkout_token);
    await simulate(p, 'overpaid');
    await status(page, 'confirmed');
    const view = await (await fetch(`${t.url}/checkout/${p.checkout_token}`)).json();
    const litoshi = (s: string) => BigInt(s.replace(/^(\d+)(?:\.(\d*))?$/, (_m, w: string, f = '') => w + f.padEnd(8, '0')));
    expect(litoshi(view.received_amount)).toBeGreaterThan(litoshi(view.crypto_amount));
    expect(await text(page, '#status')).toBe('Payment confirmed. Thank you!');
    expect(await text(page, '#received')).toBe(`Received: ${view.received_amount} LTC`);
    expect(await page.locator('#success').getAttribute('href')).toBe('https://shop.example/thanks');
    await close(page);
  });

  it.concurrent('paid late: the page goes from expired to confirmed and says the late deposit counted', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'BTC' });
    const { page } = await openPaying(p.checkout_token);
    await simulate(p, 'paid_late');
    await status(page, 'confirmed');
    expect(await text(page, '#late-counted')).toBe('A deposit that arrived after the deadline was counted.');
    expect(await page.locator('#countdown').count()).toBe(0);
    await close(page);
  });

  it.concurrent('a deposit in another coin is explained', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'ETH' });
    const { page } = await openPaying(p.checkout_token);
    await simulate(p, 'wrong_asset');
    const notice = page.locator('[data-wrong-asset="USDT_ERC20"]');
    await notice.waitFor(WAIT);
    expect(await notice.textContent()).toMatch(/^[\d.]+ USDT on Ethereum \(ERC-20\) arrived at this address, but this payment asks for ETH on Ethereum\. It does not count toward this payment: contact Café Olé to have it returned\.$/);
    // Not counted (accept_other_assets is off): the payment still waits for its ETH.
    expect(await page.locator('#status').getAttribute('data-status')).toBe('pending');
    await shoot(page, '9-wrong-asset');
    await close(page);
  });

  it.concurrent('the price in parts on demand: network and service fees when the customer pays them, the locked rate; a store is named', async ({ expect }) => {
    const shop = await signupAccount(t.app, { merchant_name: 'Olé Group' });
    await t.app.inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(shop.accessToken), payload: { fees_paid_by_customer: true } });
    const store = (await t.app.inject({ method: 'POST', url: '/merchant/stores', headers: tokenHeader(shop.accessToken), payload: { name: 'Olé Books' } })).json().store;
    const key = (await t.app.inject({ method: 'POST', url: '/merchant/api-keys?mode=test', headers: tokenHeader(shop.accessToken), payload: { store_id: store.id } })).json().secret;
    const p = await createPayment(t.app, key, { token: 'USDT_TRC20', amount_usd: '25.00' });
    const { page } = await openPaying(p.checkout_token);
    expect(await text(page, 'h1')).toBe('Pay Olé Books');
    expect(await text(page, '#merchant')).toBe('Olé Group');
    expect(await text(page, '#network-rule')).toBe('USDT on Tron (TRC-20): send only on Tron.');
    // No standard URI for a TRC-20 token: no wallet link.
    expect(await page.locator('#wallet-link').count()).toBe(0);
    expect(await page.locator('#bd-price').isVisible()).toBe(false);
    await page.locator('#breakdown summary').focus();
    await page.keyboard.press('Enter');
    await page.locator('#bd-price').waitFor({ state: 'visible', ...WAIT });
    const cents = async (sel: string) => Math.round(Number((await text(page, sel))!.replace(/[$,]/g, '')) * 100);
    expect(await cents('#bd-price')).toBe(2500);
    expect(await cents('#bd-network-fee')).toBe(Math.round(Number(p.network_fee_usd) * 100));
    expect(await cents('#bd-price') + await cents('#bd-network-fee') + await cents('#bd-service-fee')).toBe(await cents('#bd-total'));
    expect(await text(page, '#bd-total')).toBe(await text(page, '#amount-usd'));
    expect(await text(page, '#bd-rate')).toBe('1 USDT = $1.00');
    await shoot(page, '10-breakdown');
    await close(page);
  });

  it.concurrent('Spanish from Accept-Language; switched to Russian, kept after a reload', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'XRP' });
    const { page, errors } = await open(p.checkout_token, { locale: 'es-ES' });
    await page.locator('#tag-field').waitFor(WAIT);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('es');
    expect(await text(page, 'h1')).toBe('Pagar a Café Olé');
    expect(await text(page, '#status')).toBe('Esperando tu pago.');
    expect(await text(page, '#network-rule')).toBe('XRP en XRP Ledger: envía solo por XRP Ledger.');
    expect(await text(page, '#tag-label')).toBe('Etiqueta de destino (obligatoria)');
    expect(await text(page, '#amount-usd')).toMatch(/^\d+,\d\d US\$$/);
    expect(await page.title()).toBe('Pagar a Café Olé');
    await shoot(page, '11-spanish');

    await page.selectOption('#language', 'ru');
    await page.locator('#status', { hasText: 'Ожидаем ваш платёж.' }).waitFor(WAIT);
    expect(await text(page, '#tag-warning')).toBe('Укажите этот тег назначения в кошельке. Платёж в XRP без него не будет зачислен на этот заказ.');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('ru');
    await page.reload();
    await page.locator('#status', { hasText: 'Ожидаем ваш платёж.' }).waitFor(WAIT);
    expect(await text(page, 'button[data-copy="address"]')).toBe('Копировать');
    await shoot(page, '12-russian');
    expect(errors).toEqual([]);
    await close(page);
  });

  it.concurrent('dark mode from prefers-color-scheme; every text reaches 4.5:1 contrast in both schemes', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'XRP', amount_usd: '30' });
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page } = await open(p.checkout_token, { colorScheme });
      await page.locator('#tag-field').waitFor(WAIT);
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(bg, colorScheme).toBe(colorScheme === 'dark' ? 'rgb(15, 17, 21)' : 'rgb(243, 244, 246)');
      const worst = await lowestContrast(page);
      expect(worst.ratio, `${colorScheme}: ${worst.text}`).toBeGreaterThanOrEqual(4.5);
      if (colorScheme === 'dark') await shoot(page, '13-dark');
      await close(page);
    }
  });

  it.concurrent('phone and desktop layouts: nothing overflows at 360 px; two columns on a desktop', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'USDC_BEP20', description: 'A rather long description of what is being bought, to see it wrap on a phone without pushing the page sideways' });
    const { page } = await openPaying(p.checkout_token);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    const summary = () => page.locator('.summary').boundingBox();
    const main = () => page.locator('.card.main').boundingBox();
    expect((await main())!.y).toBeGreaterThan((await summary())!.y);
    await page.setViewportSize(WIDTHS.desktop);
    expect((await main())!.x).toBeGreaterThan((await summary())!.x + (await summary())!.width - 1);
    expect(Math.abs((await main())!.y - (await summary())!.y)).toBeLessThan(2);
    await close(page);
  });

  it.concurrent('the price in its currency with every decimal given; long unbroken values wrap on a phone', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'LTC', price_amount: '0.0005', price_currency: 'BTC', order_id: `ORD-${'7'.repeat(120)}` });
    const { page } = await openPaying(p.checkout_token);
    // Not rounded to the currency's usual 2 decimals ("BTC 0.00").
    expect(await text(page, '#price-in')).toBe('Price: BTC 0.0005');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await close(page);
    const euros = await createPayment(t.app, owner.testKey, { token: 'LTC', price_amount: '23.456', price_currency: 'EUR' });
    const opened = await openPaying(euros.checkout_token);
    expect(await text(opened.page, '#price-in')).toBe('Price: €23.456');
    await close(opened.page);
  });

  it.concurrent('paid in another coin that counts: no "Received: 0" of the coin asked for', async ({ expect }) => {
    const shop = await signupAccount(t.app, { merchant_name: 'Any Coin Shop' });
    await t.app.inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(shop.accessToken), payload: { accept_other_assets: true } });
    const p = await createPayment(t.app, shop.testKey, { token: 'ETH' });
    const { page } = await openPaying(p.checkout_token);
    await simulate(p, 'wrong_asset', shop.testKey);
    await status(page, 'confirmed');
    expect(await page.locator('[data-wrong-asset="USDT_ERC20"]').textContent()).toMatch(/It counts at its dollar value, \$[\d.]+\.$/);
    expect(await page.locator('#received').count()).toBe(0);
    await close(page);
  });

  it.concurrent('a poll that cannot reach the gateway says so in the page\'s language, and the page recovers', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'LTC' });
    const { page, errors } = await openPaying(p.checkout_token, { locale: 'es-ES' });
    await page.context().setOffline(true);
    await page.locator('#error').waitFor(WAIT);
    expect(await text(page, '#error')).toBe('No se pudo cargar el pago. Reintentando…');
    await page.context().setOffline(false);
    await page.locator('#error').waitFor({ state: 'detached', ...WAIT });
    expect(errors.filter((e) => !e.includes('ERR_INTERNET_DISCONNECTED'))).toEqual([]);
    await close(page);
  });

  it.concurrent('no coin can take the payment right now (no price, or every minimum above it): the page says so, not an empty list', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: undefined, amount_usd: '25' });
    const context = await browser.newContext({ viewport: WIDTHS.mobile, locale: 'en-US' });
    const page = await context.newPage();
    // The API's answer while the market prices no coin for this amount: token_options is empty.
    await page.route('**/socket.io/**', (route) => route.abort());
    await page.route(`**/checkout/${p.checkout_token}`, async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, json: { ...(await res.json()), token_options: [] } });
    });
    await page.goto(`${t.url}/pay/${p.checkout_token}`);
    await page.locator('#no-coins').waitFor(WAIT);
    expect(await text(page, '#no-coins')).toBe('No coin can take this payment right now. This page tries again by itself; if it stays this way, contact Café Olé.');
    expect(await page.locator('#coins').count()).toBe(0);
    expect(await page.getByText('Pick the coin and the network your wallet sends from.').count()).toBe(0);
    await context.close();
  });

  it.concurrent('falls back to polling GET /checkout/{token} when the socket cannot connect', async ({ expect }) => {
    const p = await createPayment(t.app, owner.testKey, { token: 'LTC' });
    const context = await browser.newContext({ viewport: WIDTHS.mobile, locale: 'en-US' });
    const page = await context.newPage();
    await page.route('**/socket.io/**', (route) => route.abort());
    await page.goto(`${t.url}/pay/${p.checkout_token}`);
    await addressShown(page);
    expect(await page.evaluate(() => typeof (window as unknown as { io?: unknown }).io)).toBe('undefined');
    await page.locator('#simulate-run').click();
    await status(page, 'confirmed');
    await context.close();
  });

  it.concurrent('an unknown link says so, once: it neither polls nor opens a socket for it', async ({ expect }) => {
    const context = await browser.newContext({ viewport: WIDTHS.mobile, locale: 'en-US' });
    const page = await context.newPage();
    await page.clock.install();
    const asked: string[] = [];
    page.on('request', (r) => { if (/\/checkout\/ct_unknown_token|\/socket\.io\//.test(r.url())) asked.push(new URL(r.url()).pathname); });
    await page.goto(`${t.url}/pay/ct_unknown_token`);
    await page.locator('#status', { hasText: 'This payment link is not valid. Ask the shop for a new one.' }).waitFor(WAIT);
    expect(await page.locator('#status').getAttribute('data-tone')).toBe('bad');
    // a minute of the page's time, a step at a time (each poll's answer comes back over the network):
    // polling every 4 s would have asked a dozen times more
    for (let i = 0; i < 12; i++) {
      await page.clock.runFor(5_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(asked).toEqual(['/checkout/ct_unknown_token']);
    await context.close();
  });
});

/**
 * The lowest WCAG contrast ratio of any visible text on the page, against the first opaque
 * background behind it.
 */
async function lowestContrast(page: Page): Promise<{ ratio: number; text: string }> {
  return page.evaluate(() => {
    const rgb = (c: string): [number, number, number, number] => {
      const m = c.match(/[\d.]+/g)!.map(Number);
      return [m[0], m[1], m[2], m[3] ?? 1];
    };
    const lum = ([r, g, b]: number[]) => {
      const ch = (v: number) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b);
    };
    const background = (el: Element | null): number[] => {
      for (let e = el; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c[3] > 0.5) return c;
      }
      return [255, 255, 255, 1];
    };
    let worst = { ratio: 21, text: '' };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || !n.textContent?.trim() || el.closest('.sr-only, option, script, style')) continue;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      const fg = lum(rgb(getComputedStyle(el).color));
      const bg = lum(background(el));
      const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
      if (ratio < worst.ratio) worst = { ratio, text: n.textContent.trim().slice(0, 60) };
    }
    return worst;
  });
}
