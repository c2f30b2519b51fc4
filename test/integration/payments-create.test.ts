// Payment creation, reads, checkout view, token listings and the coin choice (spec 4.1, 4.2, 7).
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { eq } from 'drizzle-orm';
import { merchants } from '../../src/accounts/index.ts';
import type { InjectOptions } from 'fastify';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signupAccount, tokenHeader, uid, type Account } from '../harness/accounts.ts';
import { createPayment, getPayment, type Json } from '../harness/payments.ts';

describeEachDb('payments create', (h) => {
  let t: TestApp;
  let acct: Account;
  // A clock of our own: each test starts a new second, so the key's 20 requests a second never carry over.
  const clock = new ManualClock(new Date());
  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock });
    acct = await signupAccount(t.app);
  });
  beforeEach(() => { clock.advance(1100); });
  afterAll(async () => { await t.close(); });

  const inject = (opts: InjectOptions) => t.app.inject(opts);
  const post = (payload: unknown, key = acct.testKey) => inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(key), payload: payload as Json });

  it('creates a test payment with a coin: address, amount, locked rate, 15 minutes', async () => {
    const res = await post({ order_id: `o-${uid()}`, amount_usd: '25.00', token: 'ETH', metadata: { ref: 7 }, customer_email: 'c@example.com' });
    expect(res.statusCode).toBe(201);
    const p = res.json();
    expect(p).toMatchObject({ status: 'pending', token: 'ETH', chain: 'ethereum', livemode: false, usd_amount: '25', rate_locked: '3000', received_amount: '0', received_usd: '0', fees_paid_by_customer: true, settlement: 'direct', metadata: { ref: 7 }, customer_email: 'c@example.com', deposits: [] });
    expect(p.merchant_id).toBe(acct.merchant.id);
    expect(p.deposit_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(p.qr_payload).toBe(p.deposit_address);
    // (25 + 1) / 0.99 = 26.2626 → 26.27 rounded up; crypto 26.27 / 3000 rounded up at 8 decimals
    expect(p.amount_due_usd).toBe('26.27');
    expect(p.crypto_amount).toBe('0.00875667');
    expect(p.network_fee_usd).toBe('1');
    expect(new Date(p.expires_at).getTime() - new Date(p.created_at).getTime()).toBe(15 * 60 * 1000);
    expect(p.checkout_token.length).toBeGreaterThanOrEqual(32);
    expect(p.checkout_url).toBe(`${t.config.checkoutUrl}/pay/${p.checkout_token}`);
    expect(p.store_id).toBeUndefined();
    expect(p.token_options).toBeUndefined();
  });

  it('never reuses a deposit address; XRP shares the service address with a unique tag', async () => {
    const a = await createPayment(t.app, acct.testKey);
    const b = await createPayment(t.app, acct.testKey);
    expect(a.deposit_address).not.toBe(b.deposit_address);
    const x = await createPayment(t.app, acct.testKey, { token: 'XRP' });
    const y = await createPayment(t.app, acct.testKey, { token: 'XRP' });
    expect(x.deposit_address).toBe(y.deposit_address);
    expect(x.qr_payload).toBe(x.deposit_address);
    expect(Number.isInteger(x.destination_tag)).toBe(true);
    expect(x.destination_tag).not.toBe(y.destination_tag);
  });

  it('creates without a coin: empty token and address, token_options, one hour to choose', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: undefined, amount_usd: 4, tokens: ['BTC', 'ETH', 'TRX'] });
    expect(p.token).toBe('');
    expect(p.deposit_address).toBe('');
    expect(p.crypto_amount).toBeUndefined();
    // BTC's minimum is 5: left out of the options
    expect(p.token_options.map((o: Json) => o.token)).toEqual(['ETH', 'TRX']);
    // (4 + 1) / 0.99 = 5.06 is below the floor 4 + 1 + 0.20: the floor applies ($1 network fee for both)
    expect(p.token_options.map((o: Json) => o.amount_due_usd)).toEqual(['5.2', '5.2']);
    expect(new Date(p.expires_at).getTime() - new Date(p.created_at).getTime()).toBe(60 * 60 * 1000);
  });

  it.each([
    [{ amount_usd: '10' }, 'order_id is required'],
    [{ order_id: '', amount_usd: '10' }, 'order_id is required'],
    [{ order_id: 'x'.repeat(201), amount_usd: '10' }, 'order_id must be 1 to 200 characters'],
    [{ order_id: 42, amount_usd: '10' }, 'order_id must be 1 to 200 characters'],
    [{ order_id: 'a' }, 'amount_usd is required'],
    [{ order_id: 'a', amount_usd: true }, 'amount_usd must be a number or a decimal string'],
    [{ order_id: 'a', amount_usd: 'ten' }, 'amount_usd must be a number or a decimal string'],
    [{ order_id: 'a', amount_usd: -5 }, 'amount_usd must be greater than 0'],
    [{ order_id: 'a', amount_usd: 0 }, 'amount_usd must be greater than 0'],
    [{ order_id: 'a', amount_usd: '10.123' }, 'amount_usd has more than 2 decimals'],
    [{ order_id: 'a', amount_usd: 1e40 }, 'amount_usd must be at most 1000000000'],
    [{ order_id: 'a', amount_usd: '1000000000.01' }, 'amount_usd must be at most 1000000000'],
    [{ order_id: 'a', amount_usd: '1e2' }, 'amount_usd must be a number or a decimal string'],
    [{ order_id: 'a', amount_usd: '10', token: 'FOO' }, 'unsupported token: FOO'],
    [{ order_id: 'a', amount_usd: '10', tokens: 'ETH' }, 'tokens must be an array of token symbols'],
    [{ order_id: 'a', amount_usd: '10', tokens: [1] }, 'tokens must be an array of token symbols'],
    [{ order_id: 'a', amount_usd: '10', tokens: ['ETH', 'NOPE'] }, 'unsupported token: NOPE'],
    [{ order_id: 'a', amount_usd: '10', token: 5 }, 'token must be a token symbol'],
    [{ order_id: 'a', amount_usd: '10', token: 'BTC', tokens: ['ETH', 'LTC'] }, 'token must be one of tokens'],
    [{ order_id: 'a', amount_usd: '10', price_currency: 'EURO', price_amount: '9' }, 'price_currency must be a 3-letter currency code'],
    [{ order_id: 'a', amount_usd: '10', price_amount: '9' }, 'price_currency is required with price_amount'],
    [{ order_id: 'a', amount_usd: '10', price_currency: 'EUR', price_amount: '0' }, 'price_amount must be a positive decimal number'],
    [{ order_id: 'a', amount_usd: '10', price_currency: 'EUR', price_amount: 'nine' }, 'price_amount must be a positive decimal number'],
    [{ order_id: 'a', amount_usd: '10', metadata: [1] }, 'metadata must be an object'],
    [{ order_id: 'a', amount_usd: '10', success_url: 'not a url' }, 'success_url: url must be an absolute http(s) URL'],
    // spec 7 and CONTRACT.md: a payment's own URLs answer the URL errors with the field's prefix, as webhook_url and too-long ones do
    [{ order_id: 'a', amount_usd: '10', cancel_url: 'https://' }, 'cancel_url: url must be an absolute http(s) URL'],
    [{ order_id: 'a', amount_usd: '10', customer_email: 'nope' }, 'customer_email must be an email address'],
    [{ order_id: 'a', amount_usd: '10', webhook_url: 'ftp://x/' }, 'webhook_url: url must be an absolute http(s) URL'],
    // a value of another type is no URL (spec 7: `url is required` is a missing or empty one), as success_url answers it
    [{ order_id: 'a', amount_usd: '10', webhook_url: 5 }, 'webhook_url: url must be an absolute http(s) URL'],
    [{ order_id: 'a', amount_usd: '10', webhook_url: ['https://8.8.8.8/h'] }, 'webhook_url: url must be an absolute http(s) URL'],
    [{ order_id: 'a', amount_usd: '10', success_url: 5 }, 'success_url: url must be an absolute http(s) URL'],
    [{ order_id: 'a', amount_usd: '10', simulate: 'maybe' }, 'simulate must be one of: confirmed, overpaid, partially_paid, underpaid, expired, failed, wrong_asset, paid_late'],
    [{ order_id: 'a', amount_usd: '10', simulate: 'confirmed' }, "choose the payment's coin first"],
    // spec 3/7: wrong_asset is impossible for a coin with no other coin on its network, at creation as on the simulate route
    [{ order_id: 'wa-btc', amount_usd: '10', token: 'BTC', simulate: 'wrong_asset' }, 'a BTC address only receives BTC: wrong_asset needs a coin on Tron, Ethereum or BNB Smart Chain'],
    [{ order_id: 'wa-xrp', amount_usd: '10', token: 'XRP', simulate: 'wrong_asset' }, 'a XRP address only receives XRP: wrong_asset needs a coin on Tron, Ethereum or BNB Smart Chain'],
    [{ order_id: 'a', amount_usd: '2', token: 'BTC' }, 'amount_usd is below the minimum payment in BTC: $5 right now'],
    [{ order_id: 'a\u0000', amount_usd: '10', token: 'ETH' }, 'order_id must not contain NUL characters'],
    [{ order_id: 'a', amount_usd: '10', token: 'ETH', metadata: { k: 'x\u0000' } }, 'metadata must not contain NUL characters'],
  ])('refuses %j with 400 %s', async (payload, message) => {
    const res = await post(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
  });

  it('keeps a payment\'s webhook_url as checked: trimmed like the account URL, never over 2048 characters', async () => {
    // The policy checks (and measures) the trimmed URL; the stored one is the same text, as PUT /v1/webhook keeps it.
    const long = `https://8.8.8.8/${'a'.repeat(2048 - 'https://8.8.8.8/'.length)}`;
    const res = await post({ order_id: `o-${uid()}`, amount_usd: '10', token: 'ETH', webhook_url: `  ${long}  ` });
    expect(res.statusCode).toBe(201);
    expect(res.json().webhook_url).toBe(long);
  });

  it('takes an order_id of exactly 200 characters', async () => {
    const res = await post({ order_id: 'x'.repeat(200), amount_usd: '10', token: 'ETH' });
    expect(res.statusCode).toBe(201);
    expect(res.json().order_id).toHaveLength(200);
  });

  it('counts order_id in characters, not UTF-16 units (CONTRACT.md: order_id 1..200 characters)', async () => {
    const emoji = '\u{1F600}'.repeat(200);
    const res = await post({ order_id: emoji, amount_usd: '10', token: 'ETH' });
    expect(res.statusCode).toBe(201);
    expect([...res.json().order_id]).toHaveLength(200);
    const found = await inject({ method: 'GET', url: `/v1/payments?order_id=${encodeURIComponent(emoji)}`, headers: keyHeader(acct.testKey) });
    expect(found.json().payments.map((p: Json) => p.id)).toEqual([res.json().id]);
    expect((await post({ order_id: `${emoji}x`, amount_usd: '10', token: 'ETH' })).json()).toEqual({ error: 'order_id must be 1 to 200 characters' });
  });

  it('counts description in characters too: 1,000 emoji are taken, 1,001 refused', async () => {
    const ok = await post({ order_id: `d-${uid()}`, amount_usd: '10', token: 'ETH', description: '\u{1F600}'.repeat(1000) });
    expect(ok.statusCode).toBe(201);
    expect([...ok.json().description]).toHaveLength(1000);
    const long = await post({ order_id: `d-${uid()}`, amount_usd: '10', token: 'ETH', description: '\u{1F600}'.repeat(1001) });
    expect([long.statusCode, long.json()]).toEqual([400, { error: 'description must be a string of at most 1000 characters' }]);
  });

  it('with fees kept by the merchant: the price alone is due and the note says the fee comes out of what it receives', async () => {
    const other = await signupAccount(t.app);
    const set = await inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(other.accessToken), payload: { fees_paid_by_customer: false } });
    expect(set.statusCode).toBe(200);
    const kept = await createPayment(t.app, other.testKey, { token: 'ETH', amount_usd: '25' });
    expect(kept).toMatchObject({
      fees_paid_by_customer: false, usd_amount: '25', amount_due_usd: '25', network_fee_usd: '1',
      network_fee_note: 'the network fee of moving the deposit is taken from what the merchant receives',
    });
    // its coin options carry no amount_due_usd of their own: the price is what is due in any coin
    const bare = await createPayment(t.app, other.testKey, { token: undefined, amount_usd: '25', tokens: ['ETH', 'TRX'] });
    expect(bare.token_options.map((o: Json) => [o.token, o.amount_due_usd])).toEqual([['ETH', undefined], ['TRX', undefined]]);
    const passed = await createPayment(t.app, acct.testKey, { token: 'ETH', amount_usd: '25' });
    expect(passed).toMatchObject({
      fees_paid_by_customer: true, amount_due_usd: '26.27',
      network_fee_note: 'the network fee of moving the deposit is included in amount_due_usd',
    });
  });

  it('refuses a coin the merchant did not enable', async () => {
    const other = await signupAccount(t.app);
    const set = await inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(other.accessToken), payload: { enabled_tokens: ['ETH'] } });
    expect(set.statusCode).toBe(200);
    const res = await post({ order_id: 'x', amount_usd: '10', token: 'BTC' }, other.testKey);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'not enabled for your account: BTC' });
    // spec 1: only enabled coins are allowed in a payment's `tokens` either
    const listed = await post({ order_id: 'y', amount_usd: '10', tokens: ['ETH', 'LTC'] }, other.testKey);
    expect([listed.statusCode, listed.json()]).toEqual([400, { error: 'not enabled for your account: LTC' }]);
  });

  it('answers 200 with the same open payment for a repeated order_id, 201 in another scope', async () => {
    const order = `o-${uid()}`;
    const first = await post({ order_id: order, amount_usd: '25', token: 'ETH' });
    expect(first.statusCode).toBe(201);
    const again = await post({ order_id: order, amount_usd: '99', token: 'BTC' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    // a retry whose own price would now be refused still answers the open payment (safe retry)
    const refusedPrice = await post({ order_id: order, amount_usd: '2', token: 'BTC' });
    expect(refusedPrice.statusCode).toBe(200);
    expect(refusedPrice.json()).toEqual(first.json());
    const other = await signupAccount(t.app);
    expect((await post({ order_id: order, amount_usd: '25', token: 'ETH' }, other.testKey)).statusCode).toBe(201);
  });

  it('answers the open payment to a retry of its order after its coin was turned off or its webhook_url stopped passing (safe retry)', async () => {
    const other = await signupAccount(t.app);
    const order = `o-${uid()}`;
    const body = { order_id: order, amount_usd: '25', token: 'ETH' };
    const first = await post(body, other.testKey);
    expect(first.statusCode, first.body).toBe(201);
    const set = await inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(other.accessToken), payload: { enabled_tokens: ['BTC'] } });
    expect(set.statusCode).toBe(200);
    const again = await post(body, other.testKey);
    expect([again.statusCode, again.json()]).toEqual([200, first.json()]);
    const badUrl = await post({ ...body, token: 'BTC', webhook_url: 'not a url' }, other.testKey);
    expect([badUrl.statusCode, badUrl.json()]).toEqual([200, first.json()]);
    // a new order is refused as before
    const fresh = await post({ ...body, order_id: `o-${uid()}` }, other.testKey);
    expect([fresh.statusCode, fresh.json()]).toEqual([400, { error: 'not enabled for your account: ETH' }]);
    const freshUrl = await post({ ...body, order_id: `o-${uid()}`, token: 'BTC', webhook_url: 'not a url' }, other.testKey);
    expect([freshUrl.statusCode, freshUrl.json()]).toEqual([400, { error: 'webhook_url: url must be an absolute http(s) URL' }]);
  });

  it('50 concurrent identical requests make exactly one payment', async () => {
    const order = `o-${uid()}`;
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => inject({
      method: 'POST', url: '/v1/payments', headers: keyHeader(i < 20 ? acct.testKey : acct.testKey), payload: { order_id: order, amount_usd: '25', token: 'ETH' },
    })));
    const ok = results.filter((r) => r.statusCode === 200 || r.statusCode === 201);
    // the key allows 20 requests a second: the rest are refused with 429, never a second payment
    expect(results.every((r) => [200, 201, 429].includes(r.statusCode))).toBe(true);
    expect(ok.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(new Set(ok.map((r) => r.json().id)).size).toBe(1);
    const list = await inject({ method: 'GET', url: '/merchant/payments?mode=test&limit=200', headers: tokenHeader(acct.accessToken) });
    expect(list.json().payments.filter((p: Json) => p.order_id === order)).toHaveLength(1);
  });

  it('50 concurrent creations through the service (no rate limit) make exactly one payment', async () => {
    const order = `o-${uid()}`;
    const [merchant] = await h.db().orm.select().from(merchants).where(eq(merchants.id, acct.merchant.id));
    const caller = { merchant, livemode: false, storeId: null, actor: { kind: 'api_key' as const, id: acct.testKeyId } };
    const results = await Promise.all(Array.from({ length: 50 }, () => t.services.payments.create(caller, { order_id: order, amount_usd: '25', token: 'ETH' })));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.payment.id)).size).toBe(1);
  });

  it('concurrent creations never share a deposit address or XRP tag', async () => {
    const [merchant] = await h.db().orm.select().from(merchants).where(eq(merchants.id, acct.merchant.id));
    const caller = { merchant, livemode: false, storeId: null, actor: { kind: 'api_key' as const, id: acct.testKeyId } };
    const made = await Promise.all(Array.from({ length: 45 }, (_, i) => t.services.payments.create(caller, { order_id: `u-${uid()}`, amount_usd: '25', token: i % 3 === 0 ? 'XRP' : 'TRX' })));
    const trx = made.filter((m) => m.payment.token === 'TRX').map((m) => m.payment.deposit_address);
    const tags = made.filter((m) => m.payment.token === 'XRP').map((m) => m.payment.destination_tag);
    expect(new Set(trx).size).toBe(30);
    expect(new Set(tags).size).toBe(15);
  });

  it('reads a payment by id; 404 across mode; lists with filters and the wrapper', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: 'TRX' });
    expect((await inject({ method: 'GET', url: `/v1/payments/${p.id}`, headers: keyHeader(acct.testKey) })).json().id).toBe(p.id);
    const live = await inject({ method: 'GET', url: `/v1/payments/${p.id}`, headers: keyHeader(acct.liveKey) });
    expect([403, 404]).toContain(live.statusCode);
    const missing = await inject({ method: 'GET', url: '/v1/payments/pay_nope', headers: keyHeader(acct.testKey) });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'payment not found' });
    const list = await inject({ method: 'GET', url: '/v1/payments?token=TRX&limit=500&offset=-3', headers: keyHeader(acct.testKey) });
    const b = list.json();
    expect(b.limit).toBe(50);
    expect(b.offset).toBe(0);
    expect(b.payments.every((x: Json) => x.token === 'TRX')).toBe(true);
    expect(b.total).toBeGreaterThanOrEqual(1);
    const none = await inject({ method: 'GET', url: '/v1/payments?status=bogus', headers: keyHeader(acct.testKey) });
    expect(none.json().payments).toEqual([]);
    const merchant = await inject({ method: 'GET', url: `/merchant/payments/${p.id}`, headers: tokenHeader(acct.accessToken) });
    expect(merchant.json().id).toBe(p.id);
  });

  it('checkout view hides private fields and answers CORS to any origin', async () => {
    const p = await createPayment(t.app, acct.testKey, { metadata: { a: 1 }, customer_email: 'c@example.com', price_amount: '23', price_currency: 'eur', price_rate: '0.92' });
    const res = await inject({ method: 'GET', url: `/checkout/${p.checkout_token}`, headers: { origin: 'https://shop.example' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    // the hosted page served from another host (API_BASE) reads the gateway's time from Date
    expect(res.headers['access-control-expose-headers']).toBe('Date');
    const v = res.json();
    expect(v.id).toBe(p.id);
    for (const k of ['merchant_id', 'metadata', 'customer_email', 'webhook_url', 'checkout_token', 'checkout_url']) expect(v[k]).toBeUndefined();
    expect(v).toMatchObject({ price_amount: '23', price_currency: 'EUR', price_rate: '0.92' });
    const unknown = await inject({ method: 'GET', url: '/checkout/nope' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'payment not found' });
  });

  it('lists tokens: /v1/tokens with the amount filter, public /tokens, merchant /tokens', async () => {
    const v1 = (await inject({ method: 'GET', url: '/v1/tokens', headers: keyHeader(acct.testKey) })).json();
    expect(v1.tokens).toHaveLength(12);
    expect(v1.tokens.find((x: Json) => x.token === 'ETH')).toMatchObject({ chain: 'ethereum', min_usd: '3', network_fee_usd: '1', fee_note: 'final after 12 confirmations' });
    const small = (await inject({ method: 'GET', url: '/v1/tokens?amount_usd=4', headers: keyHeader(acct.testKey) })).json();
    expect(small.tokens.map((x: Json) => x.token)).not.toContain('BTC');
    expect(small.tokens.every((x: Json) => typeof x.amount_due_usd === 'string')).toBe(true);
    const bad = await inject({ method: 'GET', url: '/v1/tokens?amount_usd=-1', headers: keyHeader(acct.testKey) });
    expect(bad.json()).toEqual({ error: 'amount_usd must be greater than 0' });
    const pub = await inject({ method: 'GET', url: '/tokens?mode=test', headers: { origin: 'https://x.example' } });
    expect(pub.headers['access-control-allow-origin']).toBe('*');
    expect(pub.json().tokens).toHaveLength(12);
    expect((await inject({ method: 'GET', url: '/tokens' })).json().tokens).toHaveLength(12);
    const m = (await inject({ method: 'GET', url: '/merchant/tokens?mode=test', headers: tokenHeader(acct.accessToken) })).json();
    expect(m.tokens).toHaveLength(12);
    expect(m.tokens[0]).toMatchObject({ enabled: true, settles_to: 'balance' });
  });

  it('live payments need a node for their coin', async () => {
    // live mode is off for a new account: the key is refused before anything else
    const res = await post({ order_id: 'live', amount_usd: '10', token: 'ETH' }, acct.liveKey);
    expect(res.statusCode).toBe(403);
  });

  it('coin choice: every message of spec 7, then exactly one of two concurrent choices wins', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: undefined, amount_usd: '30', tokens: ['ETH', 'BTC', 'LTC'] });
    const choose = (body: unknown, ip = randomIp()) => inject({ method: 'POST', url: `/checkout/${p.checkout_token}/token`, remoteAddress: ip, payload: body as Json });
    const refusal = async (body: unknown) => { const r = await choose(body); return [r.statusCode, r.json()]; };
    expect(await refusal({})).toEqual([400, { error: 'token is required' }]);
    expect(await refusal({ token: 'TRX' })).toEqual([400, { error: "token is not one of this payment's options" }]);
    expect(await refusal({ token: 'BOGUS' })).toEqual([400, { error: "token is not one of this payment's options" }]);
    const [a, b] = await Promise.all([choose({ token: 'ETH' }), choose({ token: 'LTC' })]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    const loser = a.statusCode === 409 ? a : b;
    expect(loser.json()).toEqual({ error: 'the coin for this payment has already been chosen' });
    const won = (a.statusCode === 200 ? a : b).json();
    expect(won.deposit_address).not.toBe('');
    expect(won.merchant_id).toBeUndefined();
    expect(new Date(won.expires_at).getTime()).toBe(clock.now().getTime() + 15 * 60 * 1000);
    // the /v1 route answers the same way
    clock.advance(1100);
    const q = await createPayment(t.app, acct.testKey, { token: undefined, amount_usd: '30' });
    const v1 = await inject({ method: 'POST', url: `/v1/payments/${q.id}/token`, headers: keyHeader(acct.testKey), payload: { token: 'BTC' } });
    expect(v1.statusCode).toBe(200);
    expect(v1.json()).toMatchObject({ token: 'BTC', chain: 'bitcoin', merchant_id: acct.merchant.id });
  });

  it('coin choice on /v1 refuses with the checkout route\'s messages (CONTRACT.md: exactly like the checkout route)', async () => {
    clock.advance(1100);
    const choose = (id: string, body: unknown) => inject({ method: 'POST', url: `/v1/payments/${id}/token`, headers: keyHeader(acct.testKey), payload: body as Json });
    const refusal = async (id: string, body: unknown) => { const r = await choose(id, body); return [r.statusCode, r.json()]; };
    const p = await createPayment(t.app, acct.testKey, { token: undefined, amount_usd: '30', tokens: ['ETH', 'BTC', 'LTC'] });
    expect(await refusal(p.id, {})).toEqual([400, { error: 'token is required' }]);
    expect(await refusal(p.id, { token: 'TRX' })).toEqual([400, { error: "token is not one of this payment's options" }]);
    expect(await refusal(p.id, { token: 'BOGUS' })).toEqual([400, { error: "token is not one of this payment's options" }]);
    expect((await choose(p.id, { token: 'ETH' })).statusCode).toBe(200);
    expect(await refusal(p.id, { token: 'LTC' })).toEqual([409, { error: 'the coin for this payment has already been chosen' }]);
    // the hour to choose passed, and then the payment expired
    const late = await createPayment(t.app, acct.testKey, { token: undefined, amount_usd: '30' });
    clock.advance(60 * 60 * 1000);
    expect(await refusal(late.id, { token: 'BTC' })).toEqual([400, { error: 'this payment can no longer be paid' }]);
    await t.services.payments.runDue();
    clock.advance(1100);
    expect(await refusal(late.id, { token: 'BTC' })).toEqual([400, { error: 'this payment can no longer be paid' }]);
    expect(await getPayment(t.app, acct.testKey, late.id)).toMatchObject({ status: 'expired', token: '' });
  });

  it('limits coin choice to 5 a second per IP', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: undefined });
    const ip = randomIp();
    const codes = [];
    for (let i = 0; i < 7; i++) codes.push((await inject({ method: 'POST', url: `/checkout/${p.checkout_token}/token`, remoteAddress: ip, payload: {} })).statusCode);
    expect(codes.slice(0, 5)).toEqual([400, 400, 400, 400, 400]);
    expect(codes.slice(5)).toEqual([429, 429]);
  });
});
