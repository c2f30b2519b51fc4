// "Open in wallet" in Chromium on a staging gateway whose Ethereum node is a test network (anvil,
// chain 31337): the EIP-681 link of a live payment names that chain, not mainnet's 1, where a
// wallet would pay to an address nothing watches. wallet-uri.test.ts has the links themselves,
// checkout-page-http.test.ts the meta tag the chain id comes in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openTestDatabase } from '../harness/databases.ts';
import { createLivePayment, merchantWithAddresses } from '../harness/chain-send.ts';
import { startSocketApp, type SocketApp } from './realtime-support.ts';
import { foundOrNull } from '../../src/realtime/index.ts';
import { chromiumPresent, launchChromium } from '../harness/chromium.ts';
import { anvilAvailable, startAnvil, type AnvilNode } from '../harness/anvil.ts';

const hasChromium = chromiumPresent('checkout page wallet link browser test');

describe.skipIf(!hasChromium || !anvilAvailable())('hosted checkout page in Chromium: the wallet link on a test network', { timeout: 90_000 }, () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let t: SocketApp;
  let eth: AnvilNode;
  let browser: Browser;

  beforeAll(async () => {
    eth = await startAnvil({ chainId: 31337 });
    opened = await openTestDatabase('pglite');
    t = await startSocketApp(opened.db, { env: { ETHEREUM_RPC_URL: eth.url } });
    t.services.realtime.use({ checkout: { payerViewByToken: (tok) => foundOrNull(t.services.payments.checkoutView(tok)) } });
    await t.services.sending.evmChainIds.learn();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await opened?.dispose();
    await eth?.close();
  });

  it('a live ETH payment\'s link names the node\'s chain 31337', async () => {
    const p = await createLivePayment(t, await merchantWithAddresses(t, ['ETH']), 'ETH', '30');
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${t.url}/pay/${p.checkout_token}`);
    const link = page.locator('#wallet-link');
    await link.waitFor({ timeout: 30_000 });
    expect(await link.getAttribute('href')).toBe(`ethereum:${p.deposit_address}@31337?value=${p.crypto_amount}e18`);
    expect(errors).toEqual([]);
    await context.close();
  });
});
