// The account's webhook endpoints (spec 2 Webhook, 4.1 webhook routes and rules 1-3, 4.4, 7).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { extraKey, memberToken } from '../harness/webhooks.ts';
import { auditEntries, stores } from '../../src/accounts/schema.ts';
import { events } from '../../src/events/index.ts';
import { deliveries, webhooks } from '../../src/webhooks/index.ts';

const STOREFRONT_REFUSAL = "a storefront's key cannot change the account's webhook: set webhook_url on its payments instead";

describeEachDb('webhook endpoints', (h) => {
  let t: TestApp;
  let strict: TestApp;
  beforeAll(async () => {
    t = await startTestApp(h.db());
    strict = await startTestApp(h.db(), { env: { WEBHOOK_ALLOW_PRIVATE: '0' } });
  });
  afterAll(async () => { await t.close(); await strict.close(); });

  const call = (method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, headers: Record<string, string>, payload?: unknown, app = t) =>
    app.app.inject({ method, url, headers, remoteAddress: randomIp(), ...(payload !== undefined ? { payload: payload as object } : {}) });

  it('creates the secret on first read: 64 hex, url null, the key\'s mode, the same on the next read', async () => {
    const a = await signupAccount(t.app);
    const first = await call('GET', '/v1/webhook', keyHeader(a.testKey));
    expect(first.statusCode).toBe(200);
    const w = first.json().webhook;
    expect(w).toEqual({ livemode: false, url: null, secret: expect.stringMatching(/^[0-9a-f]{64}$/), created_at: expect.any(String), updated_at: w.created_at });
    const again = (await call('GET', '/v1/webhook', keyHeader(a.testKey))).json().webhook;
    expect(again).toEqual(w);
    const dash = (await call('GET', '/merchant/webhook?mode=test', tokenHeader(a.accessToken))).json().webhook;
    expect(dash).toEqual(w);
    const live = (await call('GET', '/merchant/webhook', tokenHeader(a.accessToken))).json().webhook;
    expect(live.livemode).toBe(true);
    expect(live.secret).not.toBe(w.secret);
  });

  it('stores the secret encrypted, never in clear', async () => {
    const a = await signupAccount(t.app);
    const { secret } = (await call('GET', '/v1/webhook', keyHeader(a.testKey))).json().webhook;
    const [row] = await h.db().orm.select().from(webhooks).where(and(eq(webhooks.merchantId, a.merchant.id), eq(webhooks.livemode, false)));
    expect(row.secretEnc).toMatch(/^v2:/);
    expect(row.secretEnc).not.toContain(secret);
    const dump = await h.db().orm.execute(sql`select row_to_json(w)::text as j from webhooks w where merchant_id = ${a.merchant.id}`) as unknown as { rows: { j: string }[] };
    for (const r of dump.rows) expect(r.j).not.toContain(secret);
  });

  it('sets a URL: updated_at moves, the same URL again changes nothing, audited without the secret', async () => {
    const a = await signupAccount(t.app);
    const before = (await call('GET', '/v1/webhook', keyHeader(a.testKey))).json().webhook;
    await new Promise((r) => setTimeout(r, 5));
    const set = await call('PUT', '/v1/webhook', keyHeader(a.testKey), { url: 'https://203.0.113.7/hooks?x=1' });
    expect(set.statusCode).toBe(200);
    const w = set.json().webhook;
    expect(w).toMatchObject({ livemode: false, url: 'https://203.0.113.7/hooks?x=1', secret: before.secret, created_at: before.created_at });
    expect(w.updated_at > before.updated_at).toBe(true);
    await new Promise((r) => setTimeout(r, 5));
    const same = (await call('PUT', '/v1/webhook', keyHeader(a.testKey), { url: 'https://203.0.113.7/hooks?x=1' })).json().webhook;
    expect(same).toEqual(w);
    const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, a.merchant.id), eq(auditEntries.action, 'webhook.url_set')));
    expect(audit).toHaveLength(1);
    expect(audit[0].subject).toBe(`${a.merchant.id}:test`);
    expect(audit[0].after).toEqual({ url: 'https://203.0.113.7/hooks?x=1' });
    expect(audit[0].actor).toMatchObject({ kind: 'api_key', id: a.testKeyId });
    expect(JSON.stringify(audit[0])).not.toContain(before.secret);
  });

  it('emits webhook:update with the webhook but never its secret', async () => {
    const a = await signupAccount(t.app);
    const { secret } = (await call('PUT', '/merchant/webhook?mode=test', tokenHeader(a.accessToken), { url: 'https://203.0.113.9/h' })).json().webhook;
    const rows = await h.db().orm.select().from(events).where(and(eq(events.merchantId, a.merchant.id), eq(events.type, 'webhook:update')));
    expect(rows).toHaveLength(1);
    expect(rows[0].data).toMatchObject({ livemode: false, url: 'https://203.0.113.9/h' });
    expect(rows[0].data).not.toHaveProperty('secret');
    expect(JSON.stringify(rows[0].data)).not.toContain(secret);
  });

  it('removes the URL with DELETE, keeps the secret, and audits webhook.url_removed', async () => {
    const a = await signupAccount(t.app);
    const set = (await call('PUT', '/v1/webhook', keyHeader(a.testKey), { url: 'https://203.0.113.8/h' })).json().webhook;
    const del = await call('DELETE', '/v1/webhook', keyHeader(a.testKey));
    expect(del.statusCode).toBe(200);
    expect(del.json().webhook).toMatchObject({ url: null, secret: set.secret });
    const again = (await call('DELETE', '/v1/webhook', keyHeader(a.testKey))).json().webhook;
    expect(again.updated_at).toBe(del.json().webhook.updated_at);
    const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, a.merchant.id), eq(auditEntries.action, 'webhook.url_removed')));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ subject: `${a.merchant.id}:test`, before: { url: 'https://203.0.113.8/h' }, after: { url: null } });
  });

  it('rolls the secret (owner only): a new secret, audited as webhook.secret_rolled', async () => {
    const a = await signupAccount(t.app);
    const old = (await call('GET', '/merchant/webhook?mode=test', tokenHeader(a.accessToken))).json().webhook;
    const dev = await memberToken(t, a.merchant.id, 'developer');
    const refused = await call('POST', '/merchant/webhook/roll-secret?mode=test', tokenHeader(dev));
    expect([refused.statusCode, refused.json()]).toEqual([403, { error: 'insufficient permissions' }]);
    const rolled = await call('POST', '/merchant/webhook/roll-secret?mode=test', tokenHeader(a.accessToken));
    expect(rolled.statusCode).toBe(200);
    const w = rolled.json().webhook;
    expect(w.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(w.secret).not.toBe(old.secret);
    expect((await call('GET', '/v1/webhook', keyHeader(a.testKey))).json().webhook.secret).toBe(w.secret);
    const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, a.merchant.id), eq(auditEntries.action, 'webhook.secret_rolled')));
    expect(audit).toHaveLength(1);
    expect(audit[0].subject).toBe(`${a.merchant.id}:test`);
    expect(JSON.stringify(audit[0])).not.toContain(w.secret);
    expect(JSON.stringify(audit[0])).not.toContain(old.secret);
  });

  /** The secret of a test key of a new store of the account. */
  const storefrontKey = async (a: Account): Promise<string> => {
    const storeId = `sto_${a.merchant.id}`;
    const now = new Date();
    await h.db().orm.insert(stores).values({ id: storeId, merchantId: a.merchant.id, name: 'Store', createdAt: now, updatedAt: now });
    return extraKey(t, a.merchant.id, { storeId });
  };

  it('lets a storefront key read and test but not change the webhook', async () => {
    const a = await signupAccount(t.app);
    const store = await storefrontKey(a);
    await call('PUT', '/v1/webhook', keyHeader(a.testKey), { url: 'https://203.0.113.8/h' });
    expect((await call('GET', '/v1/webhook', keyHeader(store))).statusCode).toBe(200);
    for (const [method, payload] of [['PUT', { url: 'https://203.0.113.10/h' }], ['DELETE', undefined]] as const) {
      const res = await call(method, '/v1/webhook', keyHeader(store), payload);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: STOREFRONT_REFUSAL });
    }
    expect((await call('POST', '/v1/webhook/test', keyHeader(store))).statusCode).toBe(202);
  });

  // Like a read-only key's refusal and a role's, the storefront's is told before the body is read:
  // whatever it sends (not JSON, too large), a storefront key cannot change the webhook.
  it('refuses a storefront key\'s change of the webhook before reading its body', async () => {
    const a = await signupAccount(t.app);
    const store = await storefrontKey(a);
    for (const method of ['PUT', 'DELETE'] as const) {
      for (const payload of ['{not json', 'x'.repeat(2 * 1024 * 1024)]) {
        const res = await t.app.inject({ method, url: '/v1/webhook', headers: { ...keyHeader(store), 'content-type': 'application/json' }, remoteAddress: randomIp(), payload });
        expect([res.statusCode, res.json()], `${method} ${payload.length}`).toEqual([403, { error: STOREFRONT_REFUSAL }]);
      }
    }
  });

  it('lets a read-only key only GET the webhook', async () => {
    const a = await signupAccount(t.app);
    const read = await extraKey(t, a.merchant.id, { access: 'read' });
    expect((await call('GET', '/v1/webhook', keyHeader(read))).statusCode).toBe(200);
    for (const [method, url] of [['PUT', '/v1/webhook'], ['DELETE', '/v1/webhook'], ['POST', '/v1/webhook/test']] as const) {
      const res = await call(method, url, keyHeader(read), method === 'PUT' ? { url: 'https://203.0.113.12' } : undefined);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'this api key is read-only: it can only read (GET)' });
    }
  });

  it('gives the dashboard routes to owners and developers only', async () => {
    const a = await signupAccount(t.app);
    for (const role of ['finance', 'viewer'] as const) {
      const tok = await memberToken(t, a.merchant.id, role);
      for (const [method, url] of [['GET', '/merchant/webhook'], ['PUT', '/merchant/webhook'], ['DELETE', '/merchant/webhook'], ['POST', '/merchant/webhook/test']] as const) {
        const res = await call(method, url, tokenHeader(tok));
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ error: 'insufficient permissions' });
      }
    }
    const dev = await memberToken(t, a.merchant.id, 'developer');
    const res = await call('PUT', '/merchant/webhook', tokenHeader(dev), { url: 'https://203.0.113.11/h' });
    expect(res.statusCode).toBe(200);
    expect(res.json().webhook).toMatchObject({ livemode: true, url: 'https://203.0.113.11/h' });
    const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, a.merchant.id), eq(auditEntries.action, 'webhook.url_set')));
    expect(audit[0]).toMatchObject({ subject: `${a.merchant.id}:live`, actor: { kind: 'merchant', role: 'developer' } });
  });

  it.each([
    [{}, 'url is required'],
    [{ url: '' }, 'url is required'],
    // another type than text is present, not empty: no absolute URL (spec 7: required means missing or empty)
    [{ url: 42 }, 'url must be an absolute http(s) URL'],
    [{ url: true }, 'url must be an absolute http(s) URL'],
    [{ url: 'shop.example.com/h' }, 'url must be an absolute http(s) URL'],
    [{ url: 'https://user:pw@shop.example.com/h' }, 'url must be an absolute http(s) URL'],
    [{ url: 'ftp://shop.example.com/h' }, 'url must be an absolute http(s) URL'],
    [{ url: 'http://93.184.216.34/h' }, 'url must use https'],
    [{ url: 'https://127.0.0.1/h' }, 'url must point at a public host'],
    [{ url: 'https://10.1.2.3/h' }, 'url must point at a public host'],
    [{ url: 'https://localhost/h' }, 'url must point at a public host'],
    [{ url: 'https://no-such-host.invalid/h' }, 'url host does not resolve'],
  ])('refuses PUT %j with 400 %s, on /v1 and on the dashboard route (spec 4.4: same bodies and errors)', async (payload, message) => {
    const a = await signupAccount(strict.app);
    for (const [url, headers] of [['/v1/webhook', keyHeader(a.testKey)], ['/merchant/webhook?mode=test', tokenHeader(a.accessToken)]] as const) {
      const res = await call('PUT', url, headers, payload, strict);
      expect([res.statusCode, res.json()], url).toEqual([400, { error: message }]);
    }
  });

  it('refuses the dashboard routes as /v1 does: a test ping with no URL, a body that is not JSON', async () => {
    const a = await signupAccount(strict.app);
    for (const mode of ['?mode=test', '']) {
      const none = await call('POST', `/merchant/webhook/test${mode}`, tokenHeader(a.accessToken), undefined, strict);
      expect([none.statusCode, none.json()], mode).toEqual([400, { error: 'no webhook url is set for this mode: set one first' }]);
    }
    const bad = await strict.app.inject({ method: 'PUT', url: '/merchant/webhook?mode=test', headers: { ...tokenHeader(a.accessToken), 'content-type': 'application/json' }, payload: '{nope', remoteAddress: randomIp() });
    expect([bad.statusCode, bad.json()]).toEqual([400, { error: 'invalid request body' }]);
    expect((await call('GET', '/merchant/webhook?mode=test', tokenHeader(a.accessToken), undefined, strict)).json().webhook.url).toBeNull();
  });

  it.each([
    ['http://93.184.216.34/h', 'webhook_url: url must use https'],
    ['https://10.1.2.3/h', 'webhook_url: url must point at a public host'],
    ['https://[::ffff:169.254.169.254]/h', 'webhook_url: url must point at a public host'],
    ['https://localhost/h', 'webhook_url: url must point at a public host'],
    // spec 7: "and the other URL errors with this prefix"
    ['', 'webhook_url: url is required'],
    ['https://no-such-host.invalid/h', 'webhook_url: url host does not resolve'],
  ])('refuses a payment whose own webhook_url is %s with 400 %s, as the account URL would be', async (url, message) => {
    const a = await signupAccount(strict.app);
    const res = await call('POST', '/v1/payments', keyHeader(a.testKey), { order_id: 'own-url', amount_usd: '25', token: 'ETH', webhook_url: url }, strict);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: message });
  });

  it('accepts a public https IP URL with any path and query, and a body that is not JSON is 400', async () => {
    const a = await signupAccount(strict.app);
    const ok = await call('PUT', '/v1/webhook', keyHeader(a.testKey), { url: 'https://93.184.216.34/a/b?c=d' }, strict);
    expect(ok.statusCode).toBe(200);
    const bad = await strict.app.inject({ method: 'PUT', url: '/v1/webhook', headers: { ...keyHeader(a.testKey), 'content-type': 'application/json' }, payload: '{nope', remoteAddress: randomIp() });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'invalid request body' });
  });

  it('answers 500 with the route\'s message only when the endpoint itself cannot be read or changed', async () => {
    const a: Account = await signupAccount(t.app);
    await call('GET', '/v1/webhook', keyHeader(a.testKey));
    expect((await call('PUT', '/v1/webhook', keyHeader(a.testKey), { url: 'https://203.0.113.11/h' })).statusCode).toBe(200);
    // A secret sealed for another row does not open: a real internal failure.
    await h.db().orm.update(webhooks).set({ secretEnc: 'v1:AAAA' }).where(eq(webhooks.merchantId, a.merchant.id));
    const read = await call('GET', '/v1/webhook', keyHeader(a.testKey));
    expect(read.statusCode).toBe(500);
    expect(read.json()).toEqual({ error: 'could not read the webhook' });
    const set = await call('PUT', '/v1/webhook', keyHeader(a.testKey), { url: 'https://203.0.113.12/h' });
    expect(set.json()).toEqual({ error: 'could not set the webhook' });
    expect((await call('DELETE', '/v1/webhook', keyHeader(a.testKey))).json()).toEqual({ error: 'could not remove the webhook' });
    const ping = await call('POST', '/v1/webhook/test', keyHeader(a.testKey));
    expect([ping.statusCode, ping.json()]).toEqual([500, { error: 'could not queue the test' }]);
    expect(await h.db().orm.select().from(deliveries).where(eq(deliveries.merchantId, a.merchant.id))).toEqual([]);
    // a wrong URL is still the caller's 400, never a 500
    expect((await call('PUT', '/v1/webhook', keyHeader(a.testKey), { url: 'nope' })).statusCode).toBe(400);
  });
});
