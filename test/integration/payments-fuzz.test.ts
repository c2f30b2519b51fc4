// Property: no body, however odd, makes a payments route answer 5xx; every refusal is a 4xx with
// the `{"error": message}` shape.
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { createPayment, type Json } from '../harness/payments.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { SIMULATION_OUTCOMES, TOKENS_FOR_TESTS } from './payments-fuzz.support.ts';

describeEachDb('payments fuzz', (h) => {
  let t: TestApp;
  let acct: Account;
  let bare: Json;
  let withCoin: Json;
  const clock = new ManualClock(new Date());
  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock });
    acct = await signupAccount(t.app);
    bare = await createPayment(t.app, acct.testKey, { token: undefined });
    withCoin = await createPayment(t.app, acct.testKey);
  });
  afterAll(async () => { await t.close(); });

  const scalar = fc.oneof(
    fc.string({ maxLength: 30 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null),
    fc.constantFrom(...TOKENS_FOR_TESTS, ...SIMULATION_OUTCOMES, '25', '0.001', '-1', '1e999', 'NaN', 'https://x.example/y', 'http://127.0.0.1:1/', 'a\u0000b'),
  );
  const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), scalar, { maxKeys: 3 }));
  const body = fc.oneof(
    fc.record({
      order_id: value, amount_usd: value, token: value, tokens: value, description: value, metadata: value,
      customer_email: value, success_url: value, cancel_url: value, webhook_url: value, simulate: value,
      price_amount: value, price_currency: value, price_rate: value, outcome: value,
    }, { requiredKeys: [] }),
    value,
  );

  it('answers every random body with a status below 500', async () => {
    const routes = () => [
      { method: 'POST' as const, url: '/v1/payments', headers: keyHeader(acct.testKey) },
      { method: 'POST' as const, url: `/v1/payments/${bare.id}/token`, headers: keyHeader(acct.testKey) },
      { method: 'POST' as const, url: `/v1/payments/${withCoin.id}/simulate`, headers: keyHeader(acct.testKey) },
      { method: 'POST' as const, url: `/checkout/${bare.checkout_token}/token`, headers: {} },
      { method: 'POST' as const, url: `/checkout/${withCoin.checkout_token}/simulate`, headers: {} },
      { method: 'POST' as const, url: `/merchant/payments/${withCoin.id}/simulate`, headers: tokenHeader(acct.accessToken) },
      { method: 'GET' as const, url: '/v1/tokens', headers: keyHeader(acct.testKey) },
      { method: 'GET' as const, url: '/v1/payments', headers: keyHeader(acct.testKey) },
      { method: 'GET' as const, url: '/merchant/payments', headers: tokenHeader(acct.accessToken) },
      { method: 'GET' as const, url: '/checkout/%00x', headers: {} },
      { method: 'GET' as const, url: '/v1/payments/%00', headers: keyHeader(acct.testKey) },
    ];
    await fc.assert(fc.asyncProperty(fc.nat({ max: 10 }), body, async (i, payload) => {
      clock.advance(1100);
      const r = routes()[i];
      const res = r.method === 'GET'
        ? await t.app.inject({ method: 'GET', url: r.url, headers: r.headers, remoteAddress: randomIp(), query: (payload && typeof payload === 'object' && !Array.isArray(payload) ? Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v) ?? ''])) : {}) })
        : await t.app.inject({ method: 'POST', url: r.url, headers: { ...r.headers, 'content-type': 'application/json' }, remoteAddress: randomIp(), payload: JSON.stringify(payload) ?? 'null' });
      expect(res.statusCode, `${r.url} ${JSON.stringify(payload)} → ${res.body}`).toBeLessThan(500);
      if (res.statusCode >= 400) expect(typeof res.json().error).toBe('string');
    }), { numRuns: 150 });
  });
});
