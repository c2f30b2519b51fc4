// The SDK (sdk/): its generated types match the served document, and its layer works against a
// listening service: typed payments, idempotent retries, errors as values, webhook verification.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { generateTypes, SCHEMA_FILE } from '../../sdk/generate.ts';
import { createGateway, type Gateway } from '../../sdk/src/index.ts';
import { signatureHeader, unixSeconds } from '../../src/webhooks/signing.ts';
import { openTestDatabase } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, uid, type Account } from '../harness/accounts.ts';

describe('SDK', () => {
  it('its generated types are current (run `node sdk/generate.ts` after changing a route description)', async () => {
    expect(await generateTypes() === fs.readFileSync(SCHEMA_FILE, 'utf8'), 'sdk/src/schema.d.ts is out of date: run `node sdk/generate.ts`').toBe(true);
  }, 120_000);

  describe('against a listening service', () => {
    let t: TestApp;
    let dispose: () => Promise<void>;
    let acct: Account;
    let gw: Gateway;
    beforeAll(async () => {
      const opened = await openTestDatabase('pglite');
      dispose = opened.dispose;
      t = await startTestApp(opened.db);
      acct = await signupAccount(t.app);
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      gw = createGateway({ baseUrl: address, apiKey: acct.testKey });
    });
    afterAll(async () => { await t.close(); await dispose(); });

    it('creates and reads a payment; a retry with the same key is the same payment, marked replayed', async () => {
      const body = { order_id: `o-${uid()}`, amount_usd: '25', token: 'ETH' };
      const key = `k-${uid()}`;
      const first = await gw.payments.create(body, { idempotencyKey: key });
      if (!first.ok) throw new Error(first.error.message);
      expect(first.status).toBe(201);
      expect(first.replayed).toBe(false);
      expect(first.data.status).toBe('pending');
      const again = await gw.payments.create(body, { idempotencyKey: key });
      expect(again).toMatchObject({ ok: true, replayed: true, data: { id: first.data.id } });
      const read = await gw.payments.get(first.data.id);
      expect(read).toMatchObject({ ok: true, data: { id: first.data.id, order_id: body.order_id } });
      const sim = await gw.payments.simulate(first.data.id, 'confirmed');
      expect(sim).toMatchObject({ ok: true, data: { simulation: { outcome: 'confirmed', state: 'running' } } });
    });

    it('answers errors as values with the gateway\'s exact message', async () => {
      const missing = await gw.payments.create({ amount_usd: '25' } as never);
      expect(missing).toMatchObject({ ok: false, error: { status: 400, message: 'order_id is required' } });
      // the id the gateway gave the request (X-Request-Id), for support to find it in the logs
      if (!missing.ok) expect(missing.error.requestId).toMatch(/^req_[0-9a-z]{26}$/);
      const notFound = await gw.payments.get('pay_unknown');
      expect(notFound).toMatchObject({ ok: false, error: { status: 404, message: 'payment not found' } });
      const wrongKey = createGateway({ baseUrl: `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`, apiKey: 'f'.repeat(64) });
      expect(await wrongKey.payments.get('x')).toMatchObject({ ok: false, error: { status: 401, message: 'invalid api key' } });
      const nowhere = createGateway({ baseUrl: 'http://127.0.0.1:9', apiKey: acct.testKey });
      expect(await nowhere.payments.get('x')).toMatchObject({ ok: false, error: { status: 0 } });
    });

    it('verifies a webhook signed as the gateway signs them', () => {
      const secret = 'a'.repeat(64);
      const raw = JSON.stringify({ id: 'evt1', type: 'ping', livemode: false, created_at: new Date().toISOString(), data: { message: 'hi' } });
      const header = signatureHeader(secret, raw, unixSeconds(new Date()));
      expect(gw.webhooks.verify(raw, header, secret)).toMatchObject({ ok: true, event: { type: 'ping' } });
      expect(gw.webhooks.verify(`${raw} `, header, secret)).toEqual({ ok: false, reason: 'signature does not match' });
    });
  });
});
