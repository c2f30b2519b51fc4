// Every route of the app under random input (issue 17): random path ids (real ones, malformed
// percent-encodings, NUL, oversize), random queries, random JSON and non-JSON bodies, random headers
// (content types, encodings, credentials, CORS, proxies, idempotency keys). Any 5xx fails, and so
// does any error answer whose body is not exactly `{"error": string}`.
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp } from '../harness/accounts.ts';
import { makeFixtureIds, type FixtureIds } from '../harness/fixture-ids.ts';
import { listRoutes, type RouteEntry } from '../harness/route-list.ts';

/**
 * Cases per route. FUZZ_RUNS raises it for a deeper search than the suite's, with a longer timeout:
 * `FUZZ_RUNS=400 npx vitest run test/integration/hardening-fuzz.test.ts --testTimeout=600000` (about 2 minutes).
 */
const RUNS_PER_ROUTE = runsPerRoute(process.env.FUZZ_RUNS);
/** An empty or mistyped FUZZ_RUNS would fuzz nothing and still pass: refused instead. */
function runsPerRoute(raw: string | undefined): number {
  if (raw === undefined) return 12;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`FUZZ_RUNS must be a whole number of at least 1, not ${JSON.stringify(raw)}`);
  return n;
}
/** HTML pages answer their own errors as pages; their API twins are fuzzed as JSON. */
const isPage = (r: RouteEntry) => r.method === 'GET' && (r.path.startsWith('/pay/') || /^\/l\/:[^/]+$/.test(r.path));

const odd = fc.constantFrom(
  '%00', 'a%00b', '%', '%zz', '%E0%A4%A', '%C0%AF', '..', '%2e%2e', '%2F', '-1', '0', '1e309', 'null', '__proto__', 'constructor',
  'x'.repeat(99), 'x'.repeat(101), 'y'.repeat(3000), '%F0%9F%92%A9', '%C3%A9', '%20', '%27%3B--', 'pay_%00',
);
const word = fc.oneof(odd, fc.string({ maxLength: 16 }).map(encodeURIComponent), fc.string({ maxLength: 8, unit: 'grapheme' }).map(encodeURIComponent));
const text = fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('\u0000', 'a\u0000', '', ' ', 'x'.repeat(5000), 'é', '-1', '1e999', 'true', 'ETH', 'USDT_TRC20', 'https://a.example/h', 'http://127.0.0.1/', 'a@b.example'));
const FIELDS = ['name', 'label', 'email', 'password', 'current_password', 'new_password', 'role', 'token', 'tokens', 'address', 'amount', 'amount_usd', 'order_id',
  'metadata', 'note', 'tx_id', 'url', 'webhook_url', 'success_url', 'cancel_url', 'outcome', 'status', 'fee_bps', 'merchant_id', 'livemode', 'body', 'ids', 'all',
  'store_id', 'code', 'reason', 'active', 'settings', 'events', 'customer_email', 'description', 'simulate', 'scopes', 'read_only', 'destination_tag', 'merchant_name'];
const value = fc.oneof(text, fc.jsonValue({ maxDepth: 2 }), fc.dictionary(text, text, { maxKeys: 2 }), fc.array(text, { maxLength: 3 }));
const jsonBody = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 6 })), value, { maxKeys: 6 }));
const rawBody = fc.constantFrom('{', 'not json', '{"a":1', '\u00ff\u00fe', '[]', 'null', '""', '1e999', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}',
  `${'['.repeat(3000)}${']'.repeat(3000)}`, 'a=1&b=2', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--');
const headerSet = fc.record({
  'content-type': fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'x/y'),
  'content-encoding': fc.constantFrom('gzip', 'br', 'identity', 'deflate, gzip'),
  origin: fc.constantFrom('https://shop.example', 'null', 'javascript:alert(1)'),
  'access-control-request-method': fc.constantFrom('GET', 'POST', 'PATCH', 'BOGUS'),
  'x-forwarded-for': fc.constantFrom('1.2.3.4', '1.2.3.4, 5.6.7.8', 'garbage', '::1', '2001:db8::1', ''),
  'idempotency-key': fc.oneof(fc.string({ maxLength: 8 }).filter((s) => /^[\x21-\x7e]*$/.test(s)), fc.constantFrom('', 'k'.repeat(300))),
  'x-request-id': fc.constantFrom('r1', 'r'.repeat(500), '<script>'),
  cookie: fc.constantFrom('refresh_token=garbage', 'refresh_token=', 'a=b; refresh_token=%00'),
  'accept-encoding': fc.constantFrom('gzip', 'br', '*', 'identity;q=0'),
}, { requiredKeys: [] });
const credential = fc.constantFrom('right', 'right', 'right', 'none', 'Bearer garbage', 'Bearer ', 'Basic YTpi', 'Bearer sk_test_xxxxxxxx', 'Bearer eyJhbGciOiJub25lIn0.e30.');
const queryDict = fc.dictionary(fc.constantFrom('mode', 'status', 'limit', 'offset', 'q', 'from', 'to', 'token', 'chain', 'before', 'active', 'category', 'unread', 'livemode', 'amount', 'x'), text, { maxKeys: 4 });

function expectSpecShape(label: string, res: { statusCode: number; body: string; headers: Record<string, unknown> }): void {
  expect(res.statusCode, `${label} → ${res.statusCode} ${res.body.slice(0, 300)}`).toBeLessThan(500);
  if (res.statusCode < 400) return;
  expect(String(res.headers['content-type']), `${label} → ${res.statusCode} ${res.body.slice(0, 300)}`).toMatch(/^application\/json/);
  const body = JSON.parse(res.body);
  expect(Object.keys(body), `${label} → ${res.body.slice(0, 300)}`).toEqual(['error']);
  expect(typeof body.error).toBe('string');
}

describeEachDb('every route under random input', (h) => {
  let t: TestApp;
  let f: FixtureIds;
  let routes: RouteEntry[];
  beforeAll(async () => {
    t = await startTestApp(h.db());
    f = await makeFixtureIds(t);
    routes = listRoutes(t.app).filter((r) => !isPage(r));
  });
  afterAll(async () => { await t.close(); });

  const realIds = () => [f.store, f.payoutAddress, f.payment, f.checkoutToken, f.link, f.slug, f.customer, f.message, f.acct.merchant.id, f.acct.user.id, f.acct.testKeyId];
  const rightCredential = (path: string): string | null =>
    path.startsWith('/admin') ? 'Bearer test-admin-token' : path.startsWith('/v1') ? `Bearer ${f.acct.testKey}` : path.startsWith('/merchant') ? `Bearer ${f.acct.accessToken}` : null;

  it('lists the routes it walks', () => {
    expect(routes.length).toBeGreaterThan(80);
    expect(routes).toContainEqual({ method: 'PATCH', path: '/merchant/stores/:id' });
    expect(routes).toContainEqual({ method: 'POST', path: '/admin/payouts/:id/sent' });
  });

  it('answers every route 2xx-4xx, every error as exactly {"error": string}', async () => {
    // Destructive routes last, so the account's credentials serve the others first.
    const destructive = (r: RouteEntry) => r.method === 'DELETE' || /logout|password|admin\/merchants\/:|suspend/.test(r.path);
    const ordered = [...routes.filter((r) => !destructive(r)), ...routes.filter(destructive)];
    for (const r of ordered) {
      const idWord = fc.oneof(word, fc.constantFrom(...realIds()));
      await fc.assert(fc.asyncProperty(fc.array(idWord, { minLength: 4, maxLength: 4 }), queryDict, fc.oneof(jsonBody.map((b) => JSON.stringify(b)), rawBody, fc.constant(undefined)), headerSet, credential,
        async (ids, query, payload, headers, cred) => {
          let i = 0;
          // `*` is a catch-all (CORS preflights); a URL never starts with `//` (that would name a host).
          const url = `/${r.path.replace(/:[A-Za-z_]+(\|:[A-Za-z_]+)*|\*/g, () => ids[i++ % ids.length]).replace(/^\/+/, '')}`;
          const h2: Record<string, string> = { ...headers };
          const right = rightCredential(r.path);
          if (cred === 'right' && right) h2.authorization = right;
          else if (cred !== 'none' && cred !== 'right') h2.authorization = cred;
          const opts: InjectOptions = { method: r.method as InjectOptions['method'], url, query, headers: h2, remoteAddress: randomIp() };
          if (payload !== undefined && r.method !== 'GET') opts.payload = payload;
          const res = await t.app.inject(opts);
          expectSpecShape(`${r.method} ${url} ${JSON.stringify(query)} ${JSON.stringify(h2)} ${String(payload).slice(0, 200)}`, res);
        }), { numRuns: RUNS_PER_ROUTE });
    }
  }, 600_000);
});
