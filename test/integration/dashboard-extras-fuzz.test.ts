// Bad input on the support chat, payment link and customer routes: any JSON body and any query
// answer a 4xx {"error": …} or a success, never a 5xx (NUL characters included).
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';

const FIELDS = ['body', 'name', 'amount_usd', 'description', 'tokens', 'success_url', 'cancel_url', 'store_id', 'active', 'email', 'metadata', 'customer_email'];
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('\u0000', 'a\u0000b', '%', '_', '', ' ', 'x'.repeat(5000), 'é'));
const value = fc.oneof(text, fc.jsonValue({ maxDepth: 2 }), fc.dictionary(text, text, { maxKeys: 2 }), fc.array(text, { maxLength: 3 }));
const anyBody = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 6 })), value, { maxKeys: 5 }));

describeEachDb('support, links and customers under bad input', (h) => {
  let t: TestApp;
  let acct: Account;
  let ids: { message: string; link: string; slug: string; customer: string };
  beforeAll(async () => {
    t = await startTestApp(h.db());
    acct = await signupAccount(t.app);
    const auth = tokenHeader(acct.accessToken);
    const message = (await t.app.inject({ method: 'POST', url: '/merchant/support/messages', headers: auth, payload: { body: 'hi' } })).json().message.id;
    const link = (await t.app.inject({ method: 'POST', url: '/merchant/links?mode=test', headers: auth, payload: { name: 'n', amount_usd: '20' } })).json().link;
    const customer = (await t.app.inject({ method: 'POST', url: '/merchant/customers?mode=test', headers: auth, payload: { email: 'c@x.example' } })).json().customer.id;
    ids = { message, link: link.id, slug: String(link.url).split('/l/')[1], customer };
  });
  afterAll(async () => { await t.close(); });

  it('never answers 5xx to any JSON body', async () => {
    const routes: { method: 'POST' | 'PATCH' | 'DELETE'; url: string; auth?: 'admin' | 'none' }[] = [
      { method: 'POST', url: '/merchant/support/messages' },
      { method: 'PATCH', url: `/merchant/support/messages/${ids.message}` },
      { method: 'POST', url: '/merchant/support/read' },
      { method: 'POST', url: '/merchant/links?mode=test' },
      { method: 'PATCH', url: `/merchant/links/${ids.link}` },
      { method: 'POST', url: '/merchant/customers?mode=test' },
      { method: 'PATCH', url: `/merchant/customers/${ids.customer}` },
      { method: 'POST', url: `/admin/support/${acct.merchant.id}/messages`, auth: 'admin' },
      { method: 'POST', url: `/l/${ids.slug}/payments`, auth: 'none' },
    ];
    for (const r of routes) {
      await fc.assert(fc.asyncProperty(anyBody, async (body) => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (!r.auth) Object.assign(headers, tokenHeader(acct.accessToken));
        if (r.auth === 'admin') headers.authorization = 'Bearer test-admin-token';
        const res = await t.app.inject({ method: r.method, url: r.url, headers, payload: JSON.stringify(body), remoteAddress: randomIp() });
        expect(res.statusCode, `${r.method} ${r.url} ${JSON.stringify(body)}: ${res.body}`).toBeLessThan(500);
        if (res.statusCode >= 400) expect(typeof res.json().error).toBe('string');
      }), { numRuns: 30 });
    }
  });

  it('never answers 5xx to any query or path id', async () => {
    const word = fc.oneof(text, fc.integer().map(String), fc.constantFrom('-1', '9'.repeat(30), 'true', 'false', 'msg_x', '..'));
    await fc.assert(fc.asyncProperty(fc.dictionary(fc.constantFrom('q', 'limit', 'offset', 'mode', 'active', 'before'), word), word, async (q, id) => {
      const enc = encodeURIComponent(id).slice(0, 90) || 'x';
      for (const [url, auth] of [
        ['/merchant/support/messages', 'member'], ['/merchant/links', 'member'], ['/merchant/customers', 'member'], [`/merchant/links/${enc}`, 'member'],
        [`/merchant/customers/${enc}`, 'member'], ['/admin/support', 'admin'], [`/admin/support/${enc}/messages`, 'admin'], [`/l/${enc}`, 'none'],
      ] as const) {
        const headers = auth === 'member' ? tokenHeader(acct.accessToken) : auth === 'admin' ? { authorization: 'Bearer test-admin-token' } : {};
        const res = await t.app.inject({ method: 'GET', url, query: q, headers, remoteAddress: randomIp() });
        expect(res.statusCode, `${url} ${JSON.stringify(q)}: ${res.body}`).toBeLessThan(500);
      }
    }), { numRuns: 40 });
  });
});
