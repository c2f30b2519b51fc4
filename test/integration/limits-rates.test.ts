// The request rates of spec part 8, each with the answer of spec 7 (429 `rate limit exceeded`) and
// its window: a second, after which the client is admitted again (the answer's Retry-After says so). The referral payout request's
// rate (1 a second, bursts of 5) is tested with its other refusals (affiliate-payouts.test.ts).
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signupAccount, type Account } from '../harness/accounts.ts';
import { createPayment } from '../harness/payments.ts';
import { ManualClock } from '../../src/platform/clock.ts';

const LIMITED = [429, { error: 'rate limit exceeded' }, '1'];

describeEachDb('request rates of spec 8', (h) => {
  let t: TestApp;
  let acct: Account;
  const clock = new ManualClock(new Date());
  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock });
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });
  // each test starts in a second of its own
  beforeEach(() => { clock.advance(1100); });

  const answer = async (opts: InjectOptions) => {
    const res = await t.app.inject(opts);
    return [res.statusCode, res.json(), res.headers['retry-after']];
  };
  const statuses = async (n: number, opts: () => InjectOptions) => {
    const got: number[] = [];
    for (let i = 0; i < n; i++) got.push((await t.app.inject(opts())).statusCode);
    return got;
  };

  it('API key: 20 requests a second per key on /v1, the 21st is 429 until the second has passed', async () => {
    const a = await signupAccount(t.app);
    const tokens = (): InjectOptions => ({ method: 'GET', url: '/v1/tokens', headers: keyHeader(a.testKey) });
    expect(await statuses(20, tokens)).toEqual(Array(20).fill(200));
    expect(await answer(tokens())).toEqual(LIMITED);
    clock.advance(999);
    expect(await answer(tokens())).toEqual(LIMITED);
    // any /v1 route: a payment creation counts against the same key
    expect(await answer({ method: 'POST', url: '/v1/payments', headers: keyHeader(a.testKey), payload: { order_id: 'x', amount_usd: '10' } })).toEqual(LIMITED);
    // the account's other key has its own budget
    expect((await t.app.inject({ method: 'GET', url: '/v1/tokens', headers: keyHeader(acct.testKey) })).statusCode).toBe(200);
    clock.advance(1);
    expect((await t.app.inject(tokens())).statusCode).toBe(200);
  });

  it('sign-in and sign-up: 5 a second per IP address each, sign-up with a limit of its own', async () => {
    const ip = randomIp();
    const login = (): InjectOptions => ({ method: 'POST', url: '/merchant/login', remoteAddress: ip, payload: {} });
    const signup = (): InjectOptions => ({ method: 'POST', url: '/merchant/signup', remoteAddress: ip, payload: { merchant_name: 'R', email: 'bad', password: 'x' } });
    expect(await statuses(5, login)).toEqual([400, 400, 400, 400, 400]);
    expect(await answer(login())).toEqual(LIMITED);
    // the sign-ins spent nothing of the sign-up budget, and the reverse
    expect(await statuses(5, signup)).toEqual([400, 400, 400, 400, 400]);
    expect(await answer(signup())).toEqual(LIMITED);
    expect(await answer(login())).toEqual(LIMITED);
    // another address is not held back
    expect((await t.app.inject({ ...login(), remoteAddress: randomIp() })).statusCode).toBe(400);
    expect((await t.app.inject({ ...signup(), remoteAddress: randomIp() })).statusCode).toBe(400);
    clock.advance(1000);
    expect((await t.app.inject(login())).statusCode).toBe(400);
    expect((await t.app.inject(signup())).statusCode).toBe(400);
  });

  it('coin choice: 5 a second per IP address, whichever payment; checkout simulate: 5 of its own', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: undefined });
    const q = await createPayment(t.app, acct.testKey, { token: undefined });
    const ip = randomIp();
    const choose = (token: string, from = ip): InjectOptions => ({ method: 'POST', url: `/checkout/${token}/token`, remoteAddress: from, payload: {} });
    const simulate = (token: string): InjectOptions => ({ method: 'POST', url: `/checkout/${token}/simulate`, remoteAddress: ip, payload: {} });
    expect(await statuses(3, () => choose(p.checkout_token))).toEqual([400, 400, 400]);
    expect(await statuses(2, () => choose(q.checkout_token))).toEqual([400, 400]);
    expect(await answer(choose(p.checkout_token))).toEqual(LIMITED);
    expect(await answer(choose(q.checkout_token))).toEqual(LIMITED);
    // the limit comes before the checkout token is looked up
    expect(await answer(choose('no-such-checkout'))).toEqual(LIMITED);
    expect((await t.app.inject(choose(p.checkout_token, randomIp()))).statusCode).toBe(400);
    // simulate's budget is its own
    expect(await statuses(5, () => simulate(p.checkout_token))).toEqual([400, 400, 400, 400, 400]);
    expect(await answer(simulate(q.checkout_token))).toEqual(LIMITED);
    clock.advance(999);
    expect(await answer(choose(p.checkout_token))).toEqual(LIMITED);
    expect(await answer(simulate(p.checkout_token))).toEqual(LIMITED);
    clock.advance(1);
    expect(await answer(choose(p.checkout_token))).toEqual([400, { error: 'token is required' }, undefined]);
    expect(await answer(simulate(p.checkout_token))).toEqual([400, { error: 'outcome is required' }, undefined]);
  });

  // CONTRACT.md: a limit admits N requests in any one-second window, whatever they carry. A body
  // that was not JSON was answered 400 before the per-IP limit was asked: it was never counted, and
  // past the limit it got 400 where every other request got 429 (the /v1 key limit and the referral
  // payout request, spec 7 "checked in this order", count it and refuse it 429).
  it('counts a body that is not JSON against each per-IP limit, and refuses it 429 past the limit', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: undefined });
    const link = (await t.app.inject({ method: 'POST', url: '/merchant/links?mode=test', headers: { authorization: `Bearer ${acct.accessToken}` }, payload: { name: 'n', amount_usd: '10' } })).json().link;
    const code = (await t.app.inject({ method: 'GET', url: '/merchant/affiliate', headers: { authorization: `Bearer ${acct.accessToken}` } })).json().code;
    const notJson = { 'content-type': 'application/json' };
    for (const url of ['/merchant/login', '/merchant/signup', '/merchant/invitations/accept', `/checkout/${p.checkout_token}/token`, `/checkout/${p.checkout_token}/simulate`, `/l/${String(link.url).split('/l/')[1]}/payments`, `/referrals/${code}/click`]) {
      clock.advance(1100);
      const ip = randomIp();
      const bad = (): InjectOptions => ({ method: 'POST', url, remoteAddress: ip, headers: notJson, payload: '{"email":' });
      expect(await statuses(5, bad), url).toEqual([400, 400, 400, 400, 400]);
      expect([url, ...(await answer(bad()))]).toEqual([url, ...LIMITED]);
      // the five that were not JSON spent the budget of well-formed requests too
      expect([url, ...(await answer({ method: 'POST', url, remoteAddress: ip, payload: {} }))]).toEqual([url, ...LIMITED]);
      clock.advance(1000);
      expect((await t.app.inject(bad())).statusCode, url).toBe(400);
    }
  });
});
