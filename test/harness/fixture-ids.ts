// One account with one of each object a route can name (store, payout address, test payment,
// payment link, customer, support message), for tests that aim bad input at real ids.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { TestApp } from './app.ts';
import { randomIp, signupAccount, tokenHeader, keyHeader, uid, type Account } from './accounts.ts';

export interface FixtureIds {
  acct: Account;
  store: string;
  payoutAddress: string;
  payment: string;
  checkoutToken: string;
  link: string;
  slug: string;
  customer: string;
  message: string;
}

async function created(t: TestApp, method: 'POST', url: string, headers: Record<string, string>, payload: object): Promise<Record<string, any>> {
  const res = await t.app.inject({ method, url, headers, payload, remoteAddress: randomIp() });
  if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

export async function makeFixtureIds(t: TestApp): Promise<FixtureIds> {
  const acct = await signupAccount(t.app);
  const auth = tokenHeader(acct.accessToken);
  const store = (await created(t, 'POST', '/merchant/stores', auth, { name: 'Main' })).store.id;
  const address = privateKeyToAccount(generatePrivateKey()).address;
  const payoutAddress = (await created(t, 'POST', '/merchant/payout-addresses', auth, { token: 'ETH', address, password: acct.password })).address.id;
  const payment = await created(t, 'POST', '/v1/payments', keyHeader(acct.testKey), { order_id: `o-${uid()}`, amount_usd: '25' });
  const link = (await created(t, 'POST', '/merchant/links?mode=test', auth, { name: 'n', amount_usd: '20' })).link;
  const customer = (await created(t, 'POST', '/merchant/customers?mode=test', auth, { email: `c-${uid()}@x.example` })).customer.id;
  const message = (await created(t, 'POST', '/merchant/support/messages', auth, { body: 'hi' })).message.id;
  return {
    acct, store, payoutAddress, payment: payment.id, checkoutToken: payment.checkout_token,
    link: link.id, slug: String(link.url).split('/l/')[1], customer, message,
  };
}
