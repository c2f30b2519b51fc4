// "Open in wallet" in Chromium on a staging gateway whose Ethereum node is a test network (anvil,
// chain 31337): the EIP-681 link of a live payment names that chain, not mainnet's 1, where a
// wallet would pay to an address nothing watches. wallet-uri.test.ts has the links themselves,
// checkout-page-http.test.ts the meta tag the chain id comes in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLivePayment, merchantWithAddresses } from '../harness/chain-send.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium } from '../harness/dashboard-chromium.ts';
import { anvilAvailable, startAnvil, type AnvilNode } from '../harness/anvil.ts';

const hasChromium = chromiumPresent('checkout page wallet link browser test');

describe.skipIf(!hasChromium || !anvilAvailable())('hosted checkout page in Chromium: the wallet link on a test network', { timeout: 90_000 }, () => {
  let eth: AnvilNode;
  // the node first (closed last), then the service on it
  beforeAll(async () => { eth = await startAnvil({ chainId: 31337 }); }, 60_000);
  afterAll(async () => { await eth?.close(); });
  const env = dashboardInChromium(() => ({ env: { ETHEREUM_RPC_URL: eth.url }, payerViews: true }));
  beforeAll(async () => { await env.t.services.sending.evmChainIds.learn(); });

  it('a live ETH payment\'s link names the node\'s chain 31337', async () => {
    const p = await createLivePayment(env.t, await merchantWithAddresses(env.t, ['ETH']), 'ETH', '30');
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${env.t.url}/pay/${p.checkout_token}`);
    const link = page.locator('#wallet-link');
    await link.waitFor({ timeout: 30_000 });
    expect(await link.getAttribute('href')).toBe(`ethereum:${p.deposit_address}@31337?value=${p.crypto_amount}e18`);
    expect(errors).toEqual([]);
    await context.close();
  });
});
