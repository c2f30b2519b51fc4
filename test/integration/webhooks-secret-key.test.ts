// Webhook secrets have a key of their own (WEBHOOK_SECRET_KEY, or DATA_DIR/webhook-secret-key):
// rotating AUTH_SECRET leaves them readable. A secret sealed under AUTH_SECRET before that key
// existed is sealed again under it at start, while AUTH_SECRET is still the one that sealed it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signupAccount } from '../harness/accounts.ts';
import { webhooks } from '../../src/webhooks/index.ts';
import { SecretBox, secretContext } from '../../src/webhooks/secret-box.ts';

const FIRST_AUTH = 'test-auth-secret-test-auth-secret-0123456789';

describeEachDb('webhook secrets outlive an AUTH_SECRET rotation', (h) => {
  let t: TestApp;
  beforeAll(async () => { t = await startTestApp(h.db()); });
  afterAll(async () => { await t.close(); });

  const read = (app: TestApp, key: string) =>
    app.app.inject({ method: 'GET', url: '/v1/webhook', headers: keyHeader(key), remoteAddress: randomIp() });

  it('a secret sealed under AUTH_SECRET is sealed again under the webhook key at start, and reads the same after AUTH_SECRET changes', async () => {
    const a = await signupAccount(t.app);
    const { secret } = (await read(t, a.testKey)).json().webhook;
    const where = and(eq(webhooks.merchantId, a.merchant.id), eq(webhooks.livemode, false));
    // as a version before the webhook key stored it: v1, under AUTH_SECRET
    await h.db().orm.update(webhooks).set({ secretEnc: new SecretBox(FIRST_AUTH).seal(secret, secretContext(a.merchant.id, false)) }).where(where);
    expect((await read(t, a.testKey)).json().webhook.secret).toBe(secret);
    // what start() does
    expect(await t.services.webhooks.endpoints.resealLegacy()).toMatchObject({ resealed: expect.any(Number), unreadable: 0 });
    const [row] = await h.db().orm.select().from(webhooks).where(where);
    expect(row.secretEnc).toMatch(/^v2:/);
    // the operator rotates AUTH_SECRET: the webhook key (same WEBHOOK_SECRET_KEY) still opens it
    const rotated = await startTestApp(h.db(), { env: { AUTH_SECRET: 'rotated-auth-secret-rotated-auth-secret-0123' } });
    try {
      const after = await read(rotated, a.testKey);
      expect(after.statusCode).toBe(200);
      expect(after.json().webhook.secret).toBe(secret);
    } finally {
      await rotated.close();
    }
  });

  it('a v1 secret whose AUTH_SECRET is gone is left as it is and counted', async () => {
    const a = await signupAccount(t.app);
    await read(t, a.testKey);
    const where = and(eq(webhooks.merchantId, a.merchant.id), eq(webhooks.livemode, false));
    const lost = new SecretBox('a-former-auth-secret-a-former-auth-secret').seal('f'.repeat(64), secretContext(a.merchant.id, false));
    await h.db().orm.update(webhooks).set({ secretEnc: lost }).where(where);
    expect((await t.services.webhooks.endpoints.resealLegacy()).unreadable).toBeGreaterThanOrEqual(1);
    const [row] = await h.db().orm.select().from(webhooks).where(where);
    expect(row.secretEnc).toBe(lost);
  });
});
