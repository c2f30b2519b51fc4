// Every URL a merchant gives is at most 2,048 characters (issue 17 finding 4, CONTRACT.md "Values
// and formats"): it is copied into every event and delivery, so a longer one is refused up front.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, signupAccount, tokenHeader, uid, type Account } from '../harness/accounts.ts';

const urlOf = (chars: number) => { const base = 'http://127.0.0.1/'; return base + 'a'.repeat(chars - base.length); };
const TOO_LONG = 'url is too long (2048 characters at most)';

describeEachDb('URLs are capped at 2,048 characters', (h) => {
  let t: TestApp;
  let acct: Account;
  beforeAll(async () => { t = await startTestApp(h.db()); acct = await signupAccount(t.app); });
  afterAll(async () => { await t.close(); });

  it('the account webhook URL (/v1 and /merchant)', async () => {
    for (const [url, headers] of [['/v1/webhook', keyHeader(acct.testKey)], ['/merchant/webhook?mode=test', tokenHeader(acct.accessToken)]] as const) {
      const long = await t.app.inject({ method: 'PUT', url, headers, payload: { url: urlOf(2049) } });
      expect(long.statusCode, url).toBe(400);
      expect(long.json()).toEqual({ error: TOO_LONG });
      const edge = await t.app.inject({ method: 'PUT', url, headers, payload: { url: urlOf(2048) } });
      expect(edge.statusCode, edge.body).toBe(200);
      expect(edge.json().webhook.url).toBe(urlOf(2048));
    }
  });

  it("a payment's own URLs, with the field's prefix", async () => {
    for (const field of ['webhook_url', 'success_url', 'cancel_url']) {
      const long = await t.app.inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(acct.testKey), payload: { order_id: `o-${uid()}`, amount_usd: '10', [field]: urlOf(2049) } });
      expect(long.statusCode, field).toBe(400);
      expect(long.json()).toEqual({ error: `${field}: ${TOO_LONG}` });
      const edge = await t.app.inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(acct.testKey), payload: { order_id: `o-${uid()}`, amount_usd: '10', [field]: urlOf(2048) } });
      expect(edge.statusCode, edge.body).toBe(201);
      expect(edge.json()[field]).toBe(urlOf(2048));
    }
  });

  it("a payment link's URLs", async () => {
    const long = await t.app.inject({ method: 'POST', url: '/merchant/links?mode=test', headers: tokenHeader(acct.accessToken), payload: { name: 'n', amount_usd: '5', success_url: urlOf(5000) } });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toEqual({ error: `success_url: ${TOO_LONG}` });
  });
});
