// Bad input the review found answered 500 or in Fastify's own shapes (issue 17): NUL characters in
// text fields, path ids and queries, malformed URLs, oversize path parameters, bodies nested
// thousands of levels deep, prototype poisoning, a CORS preflight without its headers. Each answers
// a 4xx `{"error": string}` and nothing else.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, tokenHeader, keyHeader } from '../harness/accounts.ts';
import { makeFixtureIds, type FixtureIds } from '../harness/fixture-ids.ts';

const ADMIN = { authorization: 'Bearer test-admin-token' };

function expectError(res: { statusCode: number; body: string; headers: Record<string, unknown> }, status: number, message: string): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  expect(JSON.parse(res.body)).toEqual({ error: message });
}

describeEachDb('bad input answers a spec-shaped 4xx', (h) => {
  let t: TestApp;
  let f: FixtureIds;
  beforeAll(async () => {
    t = await startTestApp(h.db());
    f = await makeFixtureIds(t);
  });
  afterAll(async () => { await t.close(); });
  const inject = (o: InjectOptions) => t.app.inject({ remoteAddress: randomIp(), ...o });

  it('refuses a NUL character in a text field with 400 naming the field', async () => {
    const auth = tokenHeader(f.acct.accessToken);
    expectError(await inject({ method: 'PATCH', url: `/merchant/stores/${f.store}`, headers: auth, payload: { name: '\u0000' } }), 400, 'name must not contain NUL characters');
    expectError(await inject({ method: 'PATCH', url: `/merchant/payout-addresses/${f.payoutAddress}`, headers: auth, payload: { label: 'a\u0000' } }), 400, 'label must not contain NUL characters');
    expectError(await inject({ method: 'POST', url: '/merchant/login', payload: { email: 'a@b.example', password: 'x\u0000yyyyyyyy' } }), 400, 'password must not contain NUL characters');
    // Inside a nested value, and in a key: still named by the top-level field.
    expectError(await inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(f.acct.testKey), payload: { order_id: 'o', amount_usd: '5', metadata: { a: [{ 'b\u0000': 1 }] } } }), 400, 'metadata must not contain NUL characters');
    // The store kept its name.
    const stores = (await inject({ method: 'GET', url: '/merchant/stores', headers: auth })).json().stores;
    expect(stores.find((s: { id: string }) => s.id === f.store).name).toBe('Main');
  });

  it('refuses half an emoji (an unpaired surrogate) in any text with 400 naming the field (500, or stored altered, before)', async () => {
    const auth = tokenHeader(f.acct.accessToken);
    expectError(await inject({ method: 'PATCH', url: `/merchant/stores/${f.store}`, headers: auth, payload: { name: 'Shop \ud83d' } }), 400, 'name must not contain unpaired surrogates');
    expectError(await inject({ method: 'PATCH', url: `/merchant/payout-addresses/${f.payoutAddress}`, headers: auth, payload: { label: '\ude00x' } }), 400, 'label must not contain unpaired surrogates');
    expectError(await inject({ method: 'POST', url: '/merchant/api-keys', headers: auth, payload: { label: 'k\ud83d', mode: 'test' } }), 400, 'label must not contain unpaired surrogates');
    expectError(await inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(f.acct.testKey), payload: { order_id: 'o', amount_usd: '5', metadata: { a: [{ 'b\ud83d': 1 }] } } }), 400, 'metadata must not contain unpaired surrogates');
    // A whole emoji is text like any other.
    const ok = await inject({ method: 'PATCH', url: `/merchant/stores/${f.store}`, headers: auth, payload: { name: 'Main \ud83d\ude00' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().store.name).toBe('Main \u{1F600}');
    expect((await inject({ method: 'PATCH', url: `/merchant/stores/${f.store}`, headers: auth, payload: { name: 'Main' } })).statusCode).toBe(200);
  });

  it('answers a path id holding a NUL character as its route answers an unknown id, after its key check', async () => {
    const auth = tokenHeader(f.acct.accessToken);
    const cases: Array<[InjectOptions, number, string]> = [
      [{ method: 'GET', url: '/merchant/webhooks/deliveries/abc%00def', headers: auth }, 404, 'not found'],
      [{ method: 'POST', url: `/merchant/payouts/${f.payoutAddress}%00/cancel`, headers: auth }, 404, 'not found'],
      [{ method: 'POST', url: '/admin/payouts/%00/reject', headers: ADMIN, payload: { note: 'n' } }, 404, 'not found'],
      [{ method: 'POST', url: '/admin/payouts/%00/sent', headers: ADMIN, payload: { tx_id: 'x' } }, 404, 'not found'],
      [{ method: 'GET', url: `/checkout/${f.checkoutToken}%00` }, 404, 'payment not found'],
      [{ method: 'GET', url: '/v1/payments/pay_%00', headers: keyHeader(f.acct.testKey) }, 404, 'payment not found'],
      [{ method: 'GET', url: '/merchant/settlements/set_%00', headers: auth }, 404, 'settlement not found'],
    ];
    for (const [req, status, error] of cases) {
      expectError(await inject(req), status, error);
      // exactly what the same route answers to an unknown id without a NUL
      const unknown = await inject({ ...req, url: String(req.url).replace('%00', 'zz') });
      expect([unknown.statusCode, unknown.json()], String(req.url)).toEqual([status, { error }]);
    }
    // the key is checked first, as for any id
    const keyless = await inject({ method: 'GET', url: '/v1/payments/pay_%00' });
    expect(keyless.statusCode).toBe(401);
  });

  it('answers 400 to a query value holding a NUL character', async () => {
    expectError(await inject({ method: 'GET', url: '/merchant/payments?status=%00', headers: tokenHeader(f.acct.accessToken) }), 400, 'status must not contain NUL characters');
    expectError(await inject({ method: 'GET', url: '/admin/payouts?status=a%00', headers: ADMIN }), 400, 'status must not contain NUL characters');
  });

  it('answers 400 to an unknown chain in the operator\'s unmatched deposits (CONTRACT.md: /admin answers 400 to invalid values)', async () => {
    expectError(await inject({ method: 'GET', url: '/admin/unmatched-deposits?chain=zzz', headers: ADMIN }), 400, 'chain must be one of bitcoin, litecoin, dogecoin, ethereum, bsc, tron, xrp');
    const known = await inject({ method: 'GET', url: '/admin/unmatched-deposits?chain=tron', headers: ADMIN });
    expect([known.statusCode, known.json()]).toEqual([200, { deposits: [] }]);
  });

  it('answers a malformed URL 400 `invalid url`', async () => {
    expectError(await inject({ method: 'GET', url: '/v1/payments/%E0%A4%A', headers: keyHeader(f.acct.testKey) }), 400, 'invalid url');
    expectError(await inject({ method: 'GET', url: '/checkout/%zz' }), 400, 'invalid url');
  });

  // Spec 1: the public checkout API is CORS open to any website (CONTRACT.md: /l/{slug}/payments and
  // the referral click too), so a browser page can read its error answers. A malformed URL or a NUL in
  // the query was answered before the route's CORS ran, without the header: the page saw no answer.
  it('answers a malformed URL or a NUL query value of a CORS-open route with its CORS header, and no other route with one', async () => {
    const origin = { origin: 'https://shop.example' };
    const open: InjectOptions[] = [
      { method: 'GET', url: '/checkout/%zz', headers: origin },
      { method: 'POST', url: '/checkout/%zz/token', headers: origin, payload: { token: 'BTC' } },
      { method: 'GET', url: '/tokens/?live=%00', headers: origin },
      { method: 'GET', url: '/checkout/abc?x=%00', headers: origin },
      { method: 'POST', url: '/l/%zz/payments', headers: origin, payload: {} },
      { method: 'POST', url: '/referrals/%E0%A4%A/click', headers: origin },
    ];
    for (const o of open) {
      const res = await inject(o);
      expect([res.statusCode, res.headers['access-control-allow-origin']], o.url as string).toEqual([400, '*']);
    }
    // as the checkout API's own answers: the page reads the gateway's clock from `Date`
    expect((await inject(open[0])).headers['access-control-expose-headers']).toBe('Date');
    for (const url of ['/v1/payments/%zz', '/merchant/payments/%zz', '/v1/payments?status=%00', '/checkoutx/%zz', '/l/%zz']) {
      const res = await inject({ method: 'GET', url, headers: { ...origin, ...keyHeader(f.acct.testKey) } });
      expect([res.statusCode, res.headers['access-control-allow-origin']], url).toEqual([400, undefined]);
    }
  });

  // Spec 7: an unknown payment is 404 `payment not found` (`settlement not found`, ...), and a /v1 or
  // dashboard route without its credential is 401 first. A path id over the router's length limit
  // was answered 404 `not found` before any of that ran.
  it('answers an oversize path id as its route answers an unknown id, after its key or token check', async () => {
    const auth = tokenHeader(f.acct.accessToken);
    const key = keyHeader(f.acct.testKey);
    const long = (c: string, n = 150): string => c.repeat(n);
    const cases: Array<[InjectOptions, number, string]> = [
      [{ method: 'GET', url: `/v1/payments/${long('p')}`, headers: key }, 404, 'payment not found'],
      [{ method: 'POST', url: `/v1/payments/${long('p')}/token`, headers: key, payload: { token: 'BTC' } }, 404, 'payment not found'],
      [{ method: 'POST', url: `/v1/payments/${long('p')}/simulate`, headers: key, payload: { outcome: 'confirmed' } }, 404, 'payment not found'],
      [{ method: 'GET', url: `/v1/payments/${long('p')}` }, 401, 'missing api key'],
      [{ method: 'GET', url: `/merchant/payments/${long('p')}`, headers: auth }, 404, 'payment not found'],
      [{ method: 'GET', url: `/merchant/payments/${long('p')}/events`, headers: auth }, 404, 'payment not found'],
      [{ method: 'GET', url: `/merchant/payments/${long('p')}/trail`, headers: auth }, 404, 'payment not found'],
      [{ method: 'GET', url: `/merchant/settlements/${long('s')}`, headers: auth }, 404, 'settlement not found'],
      [{ method: 'GET', url: `/merchant/settlements/${long('s')}` }, 401, 'missing token'],
      [{ method: 'GET', url: `/merchant/webhooks/deliveries/${long('d')}`, headers: auth }, 404, 'not found'],
      [{ method: 'PATCH', url: `/merchant/stores/${long('s')}`, headers: auth, payload: { name: 'x' } }, 404, 'not found'],
      [{ method: 'GET', url: `/checkout/${long('c', 500)}` }, 404, 'payment not found'],
      [{ method: 'POST', url: `/admin/payouts/${long('x')}/reject`, headers: ADMIN, payload: { note: 'n' } }, 404, 'not found'],
      [{ method: 'POST', url: `/admin/payouts/${long('x')}/reject`, payload: { note: 'n' } }, 401, 'invalid admin token'],
    ];
    for (const [req, status, error] of cases) expectError(await inject(req), status, error);
    // a read-only key is refused a write before the id is looked at, as for any id
    const read = (await inject({ method: 'POST', url: '/merchant/api-keys?mode=test', headers: auth, payload: { access: 'read' } })).json().secret;
    expectError(await inject({ method: 'POST', url: `/v1/payments/${long('p')}/simulate`, headers: keyHeader(read), payload: { outcome: 'confirmed' } }), 403, 'this api key is read-only: it can only read (GET)');
  });

  it('answers a CORS preflight without its headers in the spec shape, and a real one as before', async () => {
    const bare = await inject({ method: 'OPTIONS', url: `/checkout/${f.checkoutToken}` });
    expect(bare.statusCode).toBeGreaterThanOrEqual(400);
    expect(bare.statusCode).toBeLessThan(500);
    expect(Object.keys(bare.json())).toEqual(['error']);
    expect(typeof bare.json().error).toBe('string');
    const real = await inject({ method: 'OPTIONS', url: `/checkout/${f.checkoutToken}`, headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' } });
    expect(real.statusCode).toBe(204);
    expect(real.headers['access-control-allow-origin']).toBe('*');
  });

  it('refuses metadata nested deeper than 20 levels (5,000 answered 500 before)', async () => {
    const deep = `${'{"a":'.repeat(5000)}{}${'}'.repeat(5000)}`;
    const key = keyHeader(f.acct.testKey);
    expectError(await inject({ method: 'POST', url: '/v1/payments', headers: { ...key, 'content-type': 'application/json' }, payload: `{"order_id":"deep","amount_usd":"5","metadata":${deep}}` }), 400, 'metadata must be nested at most 20 levels deep');
    let ok: unknown = { leaf: 1 };
    for (let i = 1; i < 20; i++) ok = { a: ok };
    const res = await inject({ method: 'POST', url: '/v1/payments', headers: key, payload: { order_id: 'deep-ok', amount_usd: '5', metadata: ok } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().metadata).toEqual(ok);
  });

  it('refuses prototype poisoning in a JSON body', async () => {
    const headers = { ...tokenHeader(f.acct.accessToken), 'content-type': 'application/json' };
    expectError(await inject({ method: 'PATCH', url: `/merchant/stores/${f.store}`, headers, payload: '{"name":"x","__proto__":{"admin":true}}' }), 400, 'invalid request body');
    expectError(await inject({ method: 'PATCH', url: `/merchant/stores/${f.store}`, headers, payload: '{"name":"x","constructor":{"prototype":{"admin":true}}}' }), 400, 'invalid request body');
  });
});
