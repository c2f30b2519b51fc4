// What spec 4.4 and CONTRACT.md let a member do or see from the dashboard and the pages did not
// offer: the payments list filtered by store, the audit log by subject, payment and actor, a payout
// address's label, address or tag changed (the password asked again for address or tag), the whole
// payment (spec 2: its store, rate, fees, metadata) and trail (its unmatched deposits), why a
// settlement waits and the settlements filtered, a member added with a password, a payment link with
// its coins, return pages and store, and a customer's recent payments.
import { beforeAll, describe, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { addMember, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { PAGES, mayOpen, type PageName, type Role } from '../../web/dashboard/lib/paths.ts';
import type { SocketApp } from './realtime-support.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium, openSignedIn, signInOnPage } from '../harness/dashboard-chromium.ts';
import { confirmPayment, createPayment } from '../harness/payments.ts';
import { ADDR, input, payment } from '../harness/settlement.ts';
import { unmatchedDeposits } from '../../src/chains/watch/index.ts';
import { usd } from '../../web/dashboard/lib/format.ts';
import { credit } from '../harness/affiliate.ts';
import { deliveries } from '../../src/webhooks/index.ts';

const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('dashboard spec browser tests');

describe.skipIf(!hasChromium)('dashboard: what spec 4.4 lets a member do, in Chromium', { timeout: 120_000 }, () => {
  // Simulations step at once: confirmPayment runs them to their end.
  const env = dashboardInChromium({ env: { SIMULATION_STEP_MS: '0' } });
  let t: SocketApp;
  let browser: Browser;
  beforeAll(() => { ({ t, browser } = env); });

  /** A new merchant's owner (or `who`), signed in on `url`, with the page loaded. */
  async function openAs(url: string, who?: Account): Promise<{ page: Page; errors: string[]; owner: Account }> {
    const owner = who ?? await signupAccount(t.app);
    return { ...(await openSignedIn(browser, t.url, url, owner)), owner };
  }

  const call = (owner: Account, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method, url, headers: tokenHeader(owner.accessToken), ...(payload ? { payload } : {}) });

  it.concurrent('payments: filtered by store (spec 4.4: the /v1/payments filters, store_id among them)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const store = (await call(owner, 'POST', '/merchant/stores', { name: 'Kiosk' })).json().store;
    const key = await call(owner, 'POST', '/merchant/api-keys?mode=test', { label: 'kiosk', store_id: store.id });
    expect(key.statusCode).toBe(201);
    await createPayment(t.app, key.json().secret, { token: 'TRX', amount_usd: '15', order_id: 'kiosk-1' });
    await createPayment(t.app, owner.testKey, { token: 'TRX', amount_usd: '16', order_id: 'web-1' });
    const { page, errors } = await openAs('/payments?mode=test', owner);
    const table = page.getByRole('table', { name: 'Payments' });
    await table.getByRole('row').filter({ hasText: 'web-1' }).waitFor(WAIT);
    const filters = page.getByRole('form', { name: 'Filters' });
    await filters.getByLabel('Store').selectOption({ label: 'Kiosk' });
    const asked = page.waitForResponse((r) => r.url().includes('/merchant/payments?') && r.url().includes(`store_id=${store.id}`));
    await filters.getByRole('button', { name: 'Apply' }).click();
    expect((await asked).status()).toBe(200);
    await expect.poll(() => table.getByRole('row').allInnerTexts().then((rows) => rows.slice(1).map((r) => r.split('\t')[1])), WAIT).toEqual(['kiosk-1']);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('audit log: filtered by subject, payment and actor (spec 4.4 Audit)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const kiosk = (await call(owner, 'POST', '/merchant/stores', { name: 'Kiosk' })).json().store;
    await call(owner, 'POST', '/merchant/stores', { name: 'Cafe' });
    const p = await createPayment(t.app, owner.testKey, { token: 'TRX', amount_usd: '15', order_id: 'audited-1' });
    const { page, errors } = await openAs('/audit', owner);
    const form = page.getByRole('form', { name: 'Filter' });
    const table = page.getByRole('table', { name: 'Audit entries' });
    const shownActions = () => table.getByRole('row').allInnerTexts().then((rows) => rows.slice(1).map((r) => r.split('\t')[1]));
    for (const [label, param, value] of [['Subject', 'subject', kiosk.id], ['Payment id', 'payment_id', p.id], ['Actor id', 'actor_id', owner.testKeyId]] as const) {
      const expected = (await call(owner, 'GET', `/merchant/audit?${param}=${encodeURIComponent(value)}`)).json().entries.map((e: { action: string }) => e.action);
      expect(expected.length, param).toBeGreaterThan(0);
      for (const other of ['Subject', 'Payment id', 'Actor id']) await form.getByLabel(other).fill('');
      await form.getByLabel(label).fill(value);
      const asked = page.waitForResponse((r) => r.url().includes('/merchant/audit?') && r.url().includes(`${param}=${encodeURIComponent(value)}`));
      await form.getByRole('button', { name: 'Apply' }).click();
      expect((await asked).status()).toBe(200);
      await expect.poll(shownActions, WAIT).toEqual(expected);
    }
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('payout addresses: the label changed without a password, the address with it (spec 4.4 PATCH, spec 5 "Dashboard access tokens" 4)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const added = await call(owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON, label: 'Old', password: owner.password });
    expect(added.statusCode).toBe(201);
    const id = added.json().address.id;
    const stored = async () => (await call(owner, 'GET', '/merchant/payout-addresses')).json().addresses.find((a: { id: string }) => a.id === id);
    const { page, errors } = await openAs('/money', owner);
    const table = page.getByRole('table', { name: 'Payout addresses' });
    await table.getByRole('button', { name: 'Edit Old' }).click();
    let form = page.getByRole('form', { name: 'Edit payout address' });
    await form.getByLabel('Label').fill('Treasury');
    await form.getByRole('button', { name: 'Save address' }).click();
    await table.getByRole('row').filter({ hasText: 'Treasury' }).waitFor(WAIT);
    expect(await form.count()).toBe(0);
    expect(await stored()).toMatchObject({ label: 'Treasury', address: ADDR.TRON });
    // A new address asks for the password again: the field is required then, and a wrong one is
    // refused by the API, its message beside the field.
    await table.getByRole('button', { name: 'Edit Treasury' }).click();
    form = page.getByRole('form', { name: 'Edit payout address' });
    const password = form.getByLabel('Your password');
    expect(await password.evaluate((el: HTMLInputElement) => el.required)).toBe(false);
    await form.getByLabel('Address').fill(ADDR.TRON_2);
    expect(await password.evaluate((el: HTMLInputElement) => el.required && el.validity.valueMissing)).toBe(true);
    await password.fill('not-my-password');
    await form.getByRole('button', { name: 'Save address' }).click();
    await form.getByRole('alert').filter({ hasText: 'password is incorrect' }).waitFor(WAIT);
    expect((await stored()).address).toBe(ADDR.TRON);
    await password.fill(owner.password);
    await form.getByRole('button', { name: 'Save address' }).click();
    await table.getByRole('row').filter({ hasText: ADDR.TRON_2 }).waitFor(WAIT);
    const moved = await stored();
    expect(moved).toMatchObject({ label: 'Treasury', address: ADDR.TRON_2 });
    // A live address changed is used 24 hours later (spec 1 Settlement 2), as the row says.
    expect(Date.parse(moved.active_at)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    expect(await table.getByRole('row').filter({ hasText: ADDR.TRON_2 }).innerText()).toContain('from ');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('payment page: the trail\'s unmatched deposits, transfers to its address after it closed (spec 2 "Payment trail", spec 1 Payment behaviour 6)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const p = await createPayment(t.app, owner.testKey, { token: 'TRX', amount_usd: '15', order_id: 'closed-1' });
    // What the chain watcher records for a transfer no payment took (src/chains/watch/unmatched.ts).
    await t.platform.db.orm.insert(unmatchedDeposits).values({
      id: `ud_${p.id}`, chain: 'tron', token: 'TRX', address: p.deposit_address, txId: 'too-late-tx-1', amount: 12_500_000n, usdValue: '3.1',
      block: 1234, merchantId: owner.merchant.id, paymentId: p.id, seenAt: new Date(),
    });
    const trail = (await call(owner, 'GET', `/merchant/payments/${p.id}/trail`)).json().trail;
    expect(trail.unmatched_deposits).toHaveLength(1);
    const { page, errors } = await openAs(`/payments/${p.id}?mode=test`, owner);
    const section = page.getByRole('region', { name: 'Unmatched deposits' });
    await section.waitFor(WAIT);
    const row = await section.getByRole('row').nth(1).innerText();
    expect(row).toContain('too-late-tx-1');
    expect(row).toContain('12.5 TRX');
    expect(row).toContain('$3.10');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('settlements: one waiting for a changed payout address says until when (spec 1 Settlement 3: awaits_address.until)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const added = (await call(owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON, password: owner.password })).json().address;
    expect((await call(owner, 'PATCH', `/merchant/payout-addresses/${added.id}`, { address: ADDR.TRON_2, password: owner.password })).statusCode).toBe(200);
    const [row] = await t.services.settlement.settle(t.platform.db, input(payment(owner.merchant.id, { livemode: true }), [{ amount: 30_000_000n, usd: '30', tx: 'waiting-deposit-1' }]));
    const s = (await call(owner, 'GET', `/merchant/settlements/${row.id}`)).json().settlement;
    expect(s.status).toBe('pending');
    const until = s.awaits_address.until as string;
    const { page, errors } = await openAs('/money', owner);
    const settlements = page.getByRole('table', { name: 'Settlements' });
    const shown = settlements.getByRole('row').filter({ hasText: 'pending' });
    await shown.waitFor(WAIT);
    const untilText = await page.evaluate((iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }), until);
    expect(await shown.innerText()).toContain(`Waits for the new payout address, in use from ${untilText}`);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('settlements: filtered by status and by where the money went (spec 4.4: status, settlement)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const added = (await call(owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON, password: owner.password })).json().address;
    expect((await call(owner, 'PATCH', `/merchant/payout-addresses/${added.id}`, { address: ADDR.TRON_2, password: owner.password })).statusCode).toBe(200);
    // one direct, pending (waiting for the changed address); one custodial, completed (in the balance)
    await t.services.settlement.settle(t.platform.db, input(payment(owner.merchant.id, { livemode: true }), [{ amount: 30_000_000n, usd: '30' }]));
    await t.services.settlement.settle(t.platform.db, input(payment(owner.merchant.id, { livemode: true, settlement: 'custodial' }), [{ amount: 40_000_000n, usd: '40' }]));
    const { page, errors } = await openAs('/money', owner);
    const section = page.getByRole('region', { name: 'Settlements' });
    const statuses = () => section.getByRole('table', { name: 'Settlements' }).getByRole('row').allInnerTexts().then((rows) => rows.slice(1).map((r) => `${r.split('\t')[2]} ${r.split('\t')[6]}`).sort());
    await expect.poll(statuses, WAIT).toEqual(['custodial completed', 'direct pending']);
    const asked = (q: string) => page.waitForResponse((r) => r.url().includes('/merchant/settlements?') && r.url().includes(q));
    let answer = asked('status=pending');
    await section.getByLabel('Status').selectOption('pending');
    expect((await answer).status()).toBe(200);
    await expect.poll(statuses, WAIT).toEqual(['direct pending']);
    answer = asked('settlement=custodial');
    await section.getByLabel('Status').selectOption('');
    await section.getByLabel('Went to').selectOption('custodial');
    expect((await answer).status()).toBe(200);
    await expect.poll(statuses, WAIT).toEqual(['custodial completed']);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('payment page: the payment\'s store, locked rate, network fee, settlement and metadata (spec 2 Payment object)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const store = (await call(owner, 'POST', '/merchant/stores', { name: 'Pop-up shop' })).json().store;
    const key = (await call(owner, 'POST', '/merchant/api-keys?mode=test', { label: 'pop-up', store_id: store.id })).json().secret;
    const p = await createPayment(t.app, key, { token: 'TRX', amount_usd: '15', order_id: 'meta-1', metadata: { plan: 'pro', seats: 3 } });
    expect(p.store_id).toBe(store.id);
    const { page, errors } = await openAs(`/payments/${p.id}?mode=test`, owner);
    const details = page.getByTestId('payment-details');
    await details.waitFor(WAIT);
    const text = await details.innerText();
    expect(text).toContain('Pop-up shop');
    expect(text).toContain(`1 TRX = ${usd(p.rate_locked)}`);
    expect(text).toContain(`${p.network_fee} TRX`);
    expect(text).toContain(p.settlement);
    expect(text).toMatch(/"plan": "pro"/);
    expect(text).toMatch(/"seats": 3/);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('team: the owner adds a member with a password (spec 4.4 Team: POST /merchant/users), who can sign in', async ({ expect }) => {
    const { page, errors, owner } = await openAs('/team');
    const form = page.getByRole('form', { name: 'Add a member' });
    const email = `added-${Date.now()}@example.com`;
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Their password').fill('first-password-123');
    await form.getByLabel('Role').selectOption('finance');
    await form.getByRole('button', { name: 'Add member' }).click();
    const row = page.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: email });
    await row.waitFor(WAIT);
    expect(await row.getByRole('combobox').inputValue()).toBe('finance');
    expect(await form.getByLabel('Their password').inputValue()).toBe('');
    const users = (await call(owner, 'GET', '/merchant/users')).json().users;
    expect(users.find((u: { email: string }) => u.email === email)).toMatchObject({ role: 'finance' });
    const login = await t.app.inject({ method: 'POST', url: '/merchant/login', payload: { email, password: 'first-password-123' } });
    expect(login.json().role).toBe('finance');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('payment links: a new link with its coins, return pages and store (CONTRACT "Payment links": POST /merchant/links)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const store = (await call(owner, 'POST', '/merchant/stores', { name: 'Market stall' })).json().store;
    const { page, errors } = await openAs('/links?mode=test', owner);
    const form = page.getByRole('form', { name: 'New payment link' });
    await form.getByLabel('Name').fill('Tickets');
    await form.getByLabel('Amount (USD)').fill('25');
    await form.getByLabel('Success URL').fill('https://shop.example.com/thanks');
    await form.getByLabel('Cancel URL').fill('https://shop.example.com/cart');
    await form.getByLabel('Store').selectOption({ label: 'Market stall' });
    const coins = form.getByRole('group', { name: 'Coins offered' });
    await coins.getByLabel('USDT_TRC20').check();
    await coins.getByLabel('BTC').check();
    await form.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('table', { name: 'Payment links' }).getByRole('row').filter({ hasText: 'Tickets' }).waitFor(WAIT);
    const [link] = (await call(owner, 'GET', '/merchant/links?mode=test')).json().links;
    expect(link).toMatchObject({ name: 'Tickets', amount_usd: '25', success_url: 'https://shop.example.com/thanks', cancel_url: 'https://shop.example.com/cart', store_id: store.id, livemode: false });
    expect([...link.tokens].sort()).toEqual(['BTC', 'USDT_TRC20']);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('customers: a customer\'s recent payments, each leading to its page (CONTRACT "Customers": GET /merchant/customers/{id})', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const email = `buyer-${Date.now()}@example.com`;
    const p = await createPayment(t.app, owner.testKey, { token: 'TRX', amount_usd: '18', order_id: 'bought-1', customer_email: email });
    await createPayment(t.app, owner.testKey, { token: 'TRX', amount_usd: '19', order_id: 'someone-else', customer_email: 'other@example.com' });
    const { page, errors } = await openAs('/customers?mode=test', owner);
    const table = page.getByRole('table', { name: 'Customers' });
    await table.getByRole('button', { name: `Payments of ${email}` }).click();
    const recent = page.getByRole('table', { name: `Recent payments of ${email}` });
    await recent.waitFor(WAIT);
    const rows = (await recent.getByRole('row').allInnerTexts()).slice(1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('bought-1');
    expect(rows[0]).toContain('$18.00');
    await recent.getByRole('link', { name: 'bought-1' }).click();
    await page.waitForURL((u) => u.pathname === `/payments/${p.id}`, WAIT);
    await page.getByTestId('payment-details').waitFor(WAIT);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('customers: one added by hand with its metadata (CONTRACT "Customers": POST body email, name, metadata)', async ({ expect }) => {
    const { page, errors, owner } = await openAs('/customers?mode=test');
    const form = page.getByRole('form', { name: 'Add a customer' });
    const email = `by-hand-${Date.now()}@example.com`;
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Name').fill('Ada');
    await form.getByLabel('Metadata (JSON)').fill('{"crm_id": "A-17"}');
    await form.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('table', { name: 'Customers' }).getByRole('row').filter({ hasText: email }).waitFor(WAIT);
    const [c] = (await call(owner, 'GET', '/merchant/customers?mode=test')).json().customers;
    expect(c).toMatchObject({ email, name: 'Ada', metadata: { crm_id: 'A-17' }, livemode: false });
    expect(await form.getByLabel('Metadata (JSON)').inputValue()).toBe('');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('referral program: referrals listed by status (CONTRACT "Referral program": query status, active or void)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const code = (await call(owner, 'GET', '/merchant/affiliate')).json().code;
    await signupAccount(t.app, { merchant_name: `Referred ${Date.now()}`, referral_code: code });
    const { page, errors } = await openAs('/referral-program', owner);
    const section = page.getByRole('region', { name: 'Referrals' });
    const rows = () => section.getByRole('table', { name: 'Referrals' }).getByRole('row').allInnerTexts().then((r) => r.slice(1));
    await expect.poll(async () => (await rows()).length, WAIT).toBe(1);
    const asked = page.waitForResponse((r) => r.url().includes('/merchant/affiliate/referrals?') && r.url().includes('status=void'));
    await section.getByLabel('Status').selectOption('void');
    expect((await asked).status()).toBe(200);
    await section.getByText('No void referral.').waitFor(WAIT);
    await section.getByLabel('Status').selectOption('active');
    await expect.poll(async () => (await rows()).join(), WAIT).toContain('Referred');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  // Spec 5 "Roles and permissions": a page a role may open asks the API only for what that role may
  // read (a 403 there is a section the member is shown and cannot have).
  for (const role of ['developer', 'finance', 'viewer'] as Role[]) {
    it.concurrent(`asks nothing a ${role} is refused, on every page the role may open, in both modes`, async ({ expect }) => {
      const owner = await signupAccount(t.app);
      await call(owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON, password: owner.password });
      const p = await createPayment(t.app, owner.testKey, { token: 'TRX', amount_usd: '15', customer_email: 'who@example.com' });
      const member = await addMember(t.app, owner.accessToken, role);
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
      const page = await context.newPage();
      const refused: string[] = [];
      page.on('response', (r) => { if (r.status() === 403 && new URL(r.url()).pathname.startsWith('/merchant')) refused.push(`${r.request().method()} ${new URL(r.url()).pathname}`); });
      await page.goto(`${t.url}/`);
      await signInOnPage(page, member);
      await page.getByRole('navigation', { name: 'Main' }).waitFor(WAIT);
      const pages = (Object.keys(PAGES) as PageName[]).filter((n) => mayOpen(n, role) && !PAGES[n].path.includes(':id'));
      for (const mode of ['', '?mode=test']) {
        for (const n of [...pages.map((x) => PAGES[x].path), `/payments/${p.id}`]) {
          await page.goto(`${t.url}${n}${mode}`);
          await page.locator('main h1').first().waitFor(WAIT);
          await page.waitForFunction(() => !document.querySelector('main .loading'), null, WAIT);
        }
      }
      expect(refused).toEqual([]);
      await context.close();
    });
  }

  it.concurrent('referral program: payouts listed by status, each with the address it goes to (spec 4.4 referral payouts: status; spec 2: address)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    await call(owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON, password: owner.password });
    await credit(t, owner.merchant.id, '200');
    const first = await call(owner, 'POST', '/merchant/affiliate/payouts', { amount: '60' });
    expect(first.statusCode, first.body).toBe(201);
    expect((await call(owner, 'POST', `/merchant/affiliate/payouts/${first.json().payout.id}/cancel`)).statusCode).toBe(200);
    expect((await call(owner, 'POST', '/merchant/affiliate/payouts', { amount: '70' })).statusCode).toBe(201);
    const { page, errors } = await openAs('/referral-program', owner);
    const section = page.getByRole('region', { name: 'Payouts' });
    const rows = () => section.getByRole('table', { name: 'Referral payouts' }).getByRole('row').allInnerTexts().then((r) => r.slice(1).map((x) => x.split('\t').slice(1, 3).join(' ')));
    await expect.poll(async () => (await rows()).sort(), WAIT).toEqual([`60 ${ADDR.TRON}`, `70 ${ADDR.TRON}`]);
    const asked = page.waitForResponse((r) => r.url().includes('/merchant/affiliate/payouts?') && r.url().includes('status=canceled'));
    await section.getByLabel('Status').selectOption('canceled');
    expect((await asked).status()).toBe(200);
    await expect.poll(rows, WAIT).toEqual([`60 ${ADDR.TRON}`]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('API keys: a storefront key names its store (spec 2 API key object: store_id)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const store = (await call(owner, 'POST', '/merchant/stores', { name: 'Corner shop' })).json().store;
    expect((await call(owner, 'POST', '/merchant/api-keys?mode=test', { label: 'corner-key', store_id: store.id })).statusCode).toBe(201);
    const { page, errors } = await openAs('/developers?mode=test', owner);
    const row = page.getByRole('table', { name: 'API keys' }).getByRole('row').filter({ hasText: 'corner-key' });
    await row.waitFor(WAIT);
    await expect.poll(async () => (await row.innerText()).split('\t')[3], WAIT).toBe('Corner shop');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.concurrent('overview: each period says how many payments were confirmed, besides its volume (spec 2 Dashboard figures: periods.*.confirmed)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const paid = await createPayment(t.app, owner.testKey, { token: 'TRX', amount_usd: '21' });
    await confirmPayment(t, owner.testKey, paid.id);
    expect((await call(owner, 'GET', '/merchant/dashboard?mode=test')).json().periods.last_7_days.confirmed).toBe(1);
    const { page, errors } = await openAs('/?mode=test', owner);
    const figures = page.getByTestId('figures');
    await figures.waitFor(WAIT);
    for (const period of ['Last 7 days', 'Last 30 days', 'All time']) {
      await expect.poll(() => figures.locator('.figure').filter({ hasText: period }).locator('dd').innerText(), WAIT).toBe('$21.00 (1 confirmed)');
    }
    expect(errors).toEqual([]);
    await page.context().close();
  });

  // Spec 4.4: payout addresses are added by the owner and finance. The checklist's link to the
  // money page is for them; another role is told who adds one instead of being sent to a page
  // without the form.
  it.concurrent('overview checklist: a payout address to add links to the money page only for roles that can add one', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    for (const role of ['finance', 'developer', 'viewer'] as Role[]) {
      const member = await addMember(t.app, owner.accessToken, role);
      const { page, errors } = await openSignedIn(browser, t.url, '/?mode=test', member);
      const item = page.getByRole('list', { name: 'Setup checklist' }).getByRole('listitem').filter({ hasText: 'Payout address added' });
      await item.waitFor(WAIT);
      if (role === 'finance') await expect(item.getByRole('link', { name: 'Set it up' }).count()).resolves.toBe(1);
      else expect([await item.getByRole('link').count(), (await item.innerText()).replace(/\s+/g, ' ')]).toEqual([0, 'Payout address added (an owner or finance member adds one)']);
      expect(errors).toEqual([]);
      await page.context().close();
    }
  });

  it.concurrent('deliveries inspector: where a delivery went (the account\'s URL or the payment\'s own) and when it was delivered (spec 2 Delivery object)', async ({ expect }) => {
    const owner = await signupAccount(t.app);
    const at = new Date(Date.now() - 60_000);
    // written as the dispatcher writes a delivered one (test mode), to a payment's own webhook_url
    await t.platform.db.orm.insert(deliveries).values({
      id: `dlv_own_${owner.merchant.id}`, merchantId: owner.merchant.id, livemode: false, target: 'payment', url: 'https://shop.example.com/own-hook', host: 'shop.example.com',
      eventId: `evt_own_${owner.merchant.id}`, eventType: 'payment.confirmed', payload: '{}', status: 'delivered', attempts: 1, maxAttempts: 7,
      nextAttemptAt: at, lastAttemptAt: at, deliveredAt: at, lastStatusCode: 200, history: [], createdAt: at,
    });
    const { page, errors } = await openAs('/developers?mode=test', owner);
    await page.getByRole('button', { name: /^Inspect payment\.confirmed/ }).click();
    const inspector = page.getByRole('region', { name: 'Delivery' });
    await inspector.waitFor(WAIT);
    const text = await inspector.innerText();
    expect(text).toContain('the payment\'s own webhook URL');
    const deliveredText = await page.evaluate((iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }), at.toISOString());
    expect(text).toMatch(new RegExp(`Delivered\\s+${deliveredText.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
