// Live market data through the service (CONTRACT.md "Live market data", GET /admin/market): live
// payments priced from local stand-ins of the five price APIs, a coin with no current price
// refused and left out of the live lists, test mode untouched, the operator's view and /metrics.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signIn, signupAccount, tokenHeader, uid, type Account } from '../harness/accounts.ts';
import type { Json } from '../harness/payments.ts';
import { FakeExchanges } from '../harness/exchanges.ts';
import { ADDR, expectLedgerHolds, input, payment } from '../harness/settlement.ts';
import { events } from '../../src/events/index.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { merchants } from '../../src/accounts/index.ts';
import { RATE_SOURCE_NAMES } from '../../src/config.ts';
import { settlements } from '../../src/settlement/index.ts';
import { TOKENS } from '../../src/tokens/index.ts';

const NODES = {
  ETHEREUM_RPC_URL: 'http://127.0.0.1:1', BSC_RPC_URL: 'http://127.0.0.1:1', BITCOIN_RPC_URL: 'http://127.0.0.1:1', LITECOIN_RPC_URL: 'http://127.0.0.1:1',
  DOGECOIN_RPC_URL: 'http://127.0.0.1:1', TRON_API_URL: 'http://127.0.0.1:1', XRP_RPC_URL: 'http://127.0.0.1:1',
};
const ADMIN = { authorization: 'Bearer test-admin-token' };
const MAX_AGE_MS = 120_000;

describeEachDb('live market', (h) => {
  let fx: FakeExchanges;
  let t: TestApp;
  let acct: Account;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    fx = await FakeExchanges.start();
    t = await startTestApp(h.db(), { clock, env: { MARKET_FILE: '', ...fx.env(), ...NODES } });
    acct = await signupAccount(t.app);
    await h.db().orm.update(merchants).set({ liveEnabled: true }).where(eq(merchants.id, acct.merchant.id));
  });
  afterAll(async () => { await t.close(); await fx.close(); });
  beforeEach(async () => {
    fx.reset();
    // a fresh minute of the API key's rate limit, and every price of the last test stale
    clock.advance(MAX_AGE_MS + 1);
    await t.services.market.refresh();
  });

  const inject = (opts: InjectOptions) => t.app.inject(opts);
  const create = (body: Json, key = acct.liveKey) => inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(key), payload: { order_id: `o-${uid()}`, amount_usd: '50', ...body } });
  const tokensOf = async (opts: InjectOptions) => (await inject(opts)).json().tokens.map((x: Json) => x.token);
  /** BNB is listed by Binance and OKX only: with both down it has no current price. */
  async function bnbStale(): Promise<void> {
    fx.set('binance', { behaviour: 'http500' });
    fx.set('okx', { behaviour: 'http429' });
    clock.advance(MAX_AGE_MS + 1);
    await t.services.market.refresh();
  }

  it('prices live payments from the sources, test payments from the built-in figures', async () => {
    fx.prices.BTC = '61000';
    await t.services.market.refresh();
    const live = await create({ token: 'BTC' });
    expect(live.statusCode).toBe(201);
    expect(live.json()).toMatchObject({ livemode: true, rate_locked: '61000' });
    const test = await create({ token: 'BTC' }, acct.testKey);
    expect(test.json()).toMatchObject({ livemode: false, rate_locked: '90000' });
  });

  it('refuses a live payment in a coin with no current price (503), and takes it again once a rate returns', async () => {
    const order = `o-${uid()}`;
    const first = (await create({ order_id: order, token: 'BNB' })).json();
    await bnbStale();
    // a safe retry of an order already open still answers its payment
    const retry = await create({ order_id: order, token: 'BNB' });
    expect(retry.statusCode).toBe(200);
    expect(retry.json().id).toBe(first.id);
    const res = await create({ token: 'BNB' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ error: 'no current price for BNB: try again shortly' });
    // when to come back: after the next refresh of prices (RATE_REFRESH_S, 30 by default)
    expect(res.headers['retry-after']).toBe('30');
    // only that coin: USDT on the same chain is priced from the dollar sources
    expect((await create({ token: 'USDT_BEP20' })).statusCode).toBe(201);
    // a payment restricted to it has no option at all
    const only = await create({ tokens: ['BNB'] });
    expect(only.statusCode).toBe(503);
    expect(only.json()).toEqual({ error: 'no current price for BNB: try again shortly' });
    // test mode never depends on live prices
    expect((await create({ token: 'BNB' }, acct.testKey)).statusCode).toBe(201);
    fx.reset();
    await t.services.market.refresh();
    expect((await create({ token: 'BNB' })).statusCode).toBe(201);
  });

  it('leaves a coin with no current price out of the live token lists and options, and brings it back', async () => {
    const all = [...TOKENS];
    expect(await tokensOf({ method: 'GET', url: '/v1/tokens', headers: keyHeader(acct.liveKey) })).toEqual(all);
    await bnbStale();
    const withoutBnb = all.filter((x) => x !== 'BNB');
    expect(await tokensOf({ method: 'GET', url: '/v1/tokens', headers: keyHeader(acct.liveKey) })).toEqual(withoutBnb);
    expect(await tokensOf({ method: 'GET', url: '/v1/tokens?amount_usd=50', headers: keyHeader(acct.liveKey) })).toEqual(withoutBnb);
    expect(await tokensOf({ method: 'GET', url: '/tokens' })).toEqual(withoutBnb);
    expect(await tokensOf({ method: 'GET', url: '/merchant/tokens', headers: tokenHeader(acct.accessToken) })).toEqual(withoutBnb);
    const bare = (await create({})).json();
    expect(bare.token_options.map((x: Json) => x.token)).toEqual(withoutBnb);
    // test mode lists every coin
    expect(await tokensOf({ method: 'GET', url: '/v1/tokens', headers: keyHeader(acct.testKey) })).toEqual(all);
    expect(await tokensOf({ method: 'GET', url: '/tokens?mode=test' })).toEqual(all);
    expect(await tokensOf({ method: 'GET', url: '/merchant/tokens?mode=test', headers: tokenHeader(acct.accessToken) })).toEqual(all);
    fx.reset();
    await t.services.market.refresh();
    expect(await tokensOf({ method: 'GET', url: '/tokens' })).toEqual(all);
    expect((await inject({ method: 'GET', url: `/checkout/${bare.checkout_token}` })).json().token_options.map((x: Json) => x.token)).toEqual(all);
  });

  it('refuses choosing, at checkout or through /v1, a coin that has lost its price since the payment was made', async () => {
    const p = (await create({})).json();
    expect(p.token_options.map((x: Json) => x.token)).toContain('BNB');
    await bnbStale();
    const choose = await inject({ method: 'POST', url: `/checkout/${p.checkout_token}/token`, remoteAddress: randomIp(), payload: { token: 'BNB' } });
    expect(choose.statusCode).toBe(503);
    expect(choose.json()).toEqual({ error: 'no current price for BNB: try again shortly' });
    expect(choose.headers['retry-after']).toBe('30');
    const v1 = await inject({ method: 'POST', url: `/v1/payments/${p.id}/token`, headers: keyHeader(acct.liveKey), payload: { token: 'BNB' } });
    expect(v1.json()).toEqual({ error: 'no current price for BNB: try again shortly' });
    // nothing changed: another coin can still be chosen
    const eth = await inject({ method: 'POST', url: `/checkout/${p.checkout_token}/token`, remoteAddress: randomIp(), payload: { token: 'ETH' } });
    expect(eth.json()).toMatchObject({ token: 'ETH', rate_locked: '3000' });
  });

  it('a live payment with no coin that expires carries token_options, priced through the deadline\'s transaction (a direct merchant\'s payout addresses read in it)', async () => {
    const p = (await create({})).json();
    // a new payout address: the addresses kept for pricing are forgotten, the deadline reads them
    // a session of now: the clock has moved past the signup's access token by this test
    const { accessToken } = await signIn(t.app, acct.email);
    const added = await inject({ method: 'POST', url: '/merchant/payout-addresses', headers: tokenHeader(accessToken),
      payload: { token: 'USDT_TRC20', address: ADDR.TRON_2, password: acct.password } });
    expect(added.statusCode, added.body).toBe(201);
    expect(await t.services.payments.runDue(new Date(p.expires_at))).toBeGreaterThanOrEqual(1);
    const [expired] = await h.db().orm.select().from(events).where(and(eq(events.paymentId, p.id), eq(events.type, 'payment.expired')));
    expect((expired.data as { status: string }).status).toBe('expired');
    const options = (expired.data as { token_options: Json[] }).token_options.map((x) => x.token);
    const page = (await inject({ method: 'GET', url: `/checkout/${p.checkout_token}`, remoteAddress: randomIp() })).json();
    expect(options).toEqual(page.token_options.map((x: Json) => x.token));
    expect(options.length).toBeGreaterThan(0);
  });

  it('refuses live payments in a stablecoin more than 5% off its peg', async () => {
    fx.prices.USDT = '0.93';
    await t.services.market.refresh();
    const res = await create({ token: 'USDT_TRC20' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ error: 'no current price for USDT_TRC20: try again shortly' });
    expect(await tokensOf({ method: 'GET', url: '/v1/tokens', headers: keyHeader(acct.liveKey) })).not.toContain('USDT_ERC20');
    // USDC holds its peg; coins quoted in USDT are still priced at USDT's dollar rate
    expect((await create({ token: 'USDC_ERC20' })).json()).toMatchObject({ rate_locked: '1' });
    expect((await create({ token: 'BNB' })).json()).toMatchObject({ rate_locked: '600' });
  });

  it('GET /admin/market: every token, its rate, status and sources; the test figures with ?mode=test', async () => {
    fx.set('kraken', { prices: { ETH: '3500' } });
    await t.services.market.refresh();
    const res = await inject({ method: 'GET', url: '/admin/market', headers: ADMIN });
    expect(res.statusCode).toBe(200);
    const market = res.json().market as Json[];
    expect(market.map((e) => e.token)).toEqual([...TOKENS]);
    for (const e of market) expect(Object.keys(e).sort()).toEqual(['rate', 'sources', 'status', 'token', 'updated_at']);
    const now = clock.now().toISOString();
    const eth = market.find((e) => e.token === 'ETH')!;
    expect(eth).toEqual({
      token: 'ETH', rate: '3000', status: 'ok', updated_at: now,
      sources: RATE_SOURCE_NAMES.map((name) => ({ name, rate: name === 'kraken' ? '3500' : '3000', fetched_at: now, used: name !== 'kraken' })),
    });
    expect(market.find((e) => e.token === 'USDT_BEP20')).toMatchObject({ rate: '1', status: 'ok' });
    await bnbStale();
    const stale = (await inject({ method: 'GET', url: '/admin/market', headers: ADMIN })).json().market.find((e: Json) => e.token === 'BNB');
    expect(stale).toMatchObject({ rate: '600', status: 'stale' });
    expect(stale.sources.every((s: Json) => s.used === false)).toBe(true);
    const test = (await inject({ method: 'GET', url: '/admin/market?mode=test', headers: ADMIN })).json().market as Json[];
    expect(test.find((e) => e.token === 'BTC')).toMatchObject({ rate: '90000', status: 'ok', sources: [] });
    expect((await inject({ method: 'GET', url: '/admin/market' })).json()).toEqual({ error: 'invalid admin token' });
    expect((await inject({ method: 'GET', url: '/admin/market', headers: { authorization: 'Bearer nope' } })).statusCode).toBe(401);
  });

  it('shows rates, statuses, sources and the peg in /metrics', async () => {
    fx.prices.USDC = '0.97';
    await bnbStale();
    const text = (await inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer test-admin-token' } })).body;
    expect(text).toContain('market_rate_usd{token="BTC"} 60000');
    expect(text).toContain('market_token_status{token="BNB",status="stale"} 1');
    expect(text).toContain('market_token_status{token="BTC",status="ok"} 1');
    expect(text).toContain('market_source_up{source="binance"} 0');
    expect(text).toContain('market_source_up{source="kraken"} 1');
    expect(text).toContain(`market_source_last_success_timestamp_seconds{source="kraken"} ${clock.now().getTime() / 1000}`);
    expect(text).toContain('market_stablecoin_off_peg{token="USDC_ERC20"} 1');
    expect(text).toContain('market_stablecoin_off_peg{token="USDT_ERC20"} 0');
    expect(text).toMatch(/market_stablecoin_peg_deviation\{token="USDC_BEP20"\} 0\.03/);
  });

  it('never values another coin\'s deposit at a stale price: it is not recorded until the coin has one', async () => {
    const p = (await create({ token: 'ETH' })).json();
    await bnbStale();
    const report = { txId: `0x${uid()}`, token: 'BNB' as const, amount: 10n ** 17n, confirmations: 0, at: clock.now() };
    await expect(t.services.payments.intake.recordDeposit({ paymentId: p.id }, report)).rejects.toThrow('no current price for BNB: try again shortly');
    fx.reset();
    await t.services.market.refresh();
    const r = await t.services.payments.intake.recordDeposit({ paymentId: p.id }, report);
    expect(r.kind === 'recorded' && r.deposits.map((d) => [d.token, d.usdValue])).toEqual([['BNB', '60']]);
  });

  it('a live settlement that needs a coin\'s rate waits for one, then settles', async () => {
    const p = payment(acct.merchant.id, { livemode: true, token: 'ETH', rate_locked: '3000', settlement: 'custodial' });
    await bnbStale();
    const [waiting] = await t.services.settlement.settle(h.db(), input(p, [{ token: 'BNB', amount: 10n ** 18n, usd: '600' }], clock.now()));
    expect(waiting).toMatchObject({ status: 'pending', note: 'waiting for a current market price', serviceFee: 0n, net: 10n ** 18n });
    const countRows = async () => (await h.db().orm.select().from(settlements).where(eq(settlements.paymentId, p.id))).length;
    // still no price a minute later: planned again later, nothing else changes
    clock.advance(61_000);
    await t.services.settlement.replanDue();
    const [still] = await h.db().orm.select().from(settlements).where(eq(settlements.id, waiting.id));
    expect(still).toMatchObject({ status: 'pending', note: 'waiting for a current market price', updatedAt: waiting.updatedAt });
    expect(still.replanAt!.getTime()).toBe(clock.now().getTime() + 60_000);
    fx.reset();
    await t.services.market.refresh();
    clock.advance(61_000);
    await t.services.settlement.replanDue();
    const [done] = await h.db().orm.select().from(settlements).where(eq(settlements.id, waiting.id));
    expect(done).toMatchObject({ status: 'completed', note: null, mode: 'custodial' });
    expect(done.serviceFee).toBeGreaterThan(0n);
    expect(done.conversion).toMatchObject({ via: 'platform', to: 'USDT_TRC20' });
    expect(await countRows()).toBe(1);
    await expectLedgerHolds(h.db());
  });
});
