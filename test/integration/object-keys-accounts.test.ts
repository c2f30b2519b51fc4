// The exact key sets of spec part 2's account objects (API key, Merchant, User, Store, Webhook,
// Audit entry) as the dashboard and /v1 answer them: optional fields absent until they apply,
// never null (CONTRACT.md 'Values and formats'), a webhook's url null until set.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { addMember, keyHeader, randomIp, signIn, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import type { Json } from '../harness/payments.ts';

const keys = (o: Json): string[] => Object.keys(o).sort();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describeEachDb('object key sets: accounts', (h) => {
  let t: TestApp;
  let acct: Account;
  beforeAll(async () => {
    t = await startTestApp(h.db());
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });

  const inject = (opts: InjectOptions) => t.app.inject({ remoteAddress: randomIp(), ...opts });
  const owner = () => tokenHeader(acct.accessToken);

  it('API key: every field of spec 2, store_id / last_used_at / revoked_at only once they apply, never the secret', async () => {
    const base = ['access', 'created_at', 'created_by', 'id', 'label', 'last4', 'livemode', 'merchant_id'];
    const store = (await inject({ method: 'POST', url: '/merchant/stores', headers: owner(), payload: { name: 'Shop' } })).json().store;
    const made = await inject({ method: 'POST', url: '/merchant/api-keys?mode=test', headers: owner(), payload: { label: 'shop', store_id: store.id } });
    expect(made.statusCode).toBe(201);
    expect(keys(made.json())).toEqual(['api_key', 'secret']);
    const key = made.json().api_key;
    expect(keys(key)).toEqual([...base, 'store_id'].sort());
    expect(key.created_at).toMatch(ISO);
    await inject({ method: 'GET', url: '/v1/payments', headers: keyHeader(made.json().secret) });
    await t.platform.outbox.drainNow();
    // last_used_at may lag a use by up to 5 seconds (CONTRACT.md 'Access')
    let used: Json | undefined;
    for (let i = 0; i < 60 && !used?.last_used_at; i++) {
      const list = (await inject({ method: 'GET', url: '/merchant/api-keys?mode=test', headers: owner() })).json().api_keys as Json[];
      used = list.find((k) => k.id === key.id);
      if (!used?.last_used_at) await new Promise((r) => setTimeout(r, 100));
    }
    expect(keys(used!)).toEqual([...base, 'last_used_at', 'store_id'].sort());
    const signup = (await inject({ method: 'GET', url: '/merchant/api-keys?mode=test', headers: owner() })).json().api_keys.find((k: Json) => k.id === acct.testKeyId);
    expect(keys(signup)).toEqual(base);
    const revoked = await inject({ method: 'DELETE', url: `/merchant/api-keys/${key.id}?mode=test`, headers: owner() });
    expect(revoked.statusCode).toBe(200);
    const after = (await inject({ method: 'GET', url: '/merchant/api-keys?mode=test', headers: owner() })).json().api_keys.find((k: Json) => k.id === key.id);
    expect(keys(after)).toEqual([...base, 'last_used_at', 'revoked_at', 'store_id'].sort());
  });

  it('Merchant: every field of spec 2, payout_scheduled_at absent until a scheduled payout', async () => {
    const me = (await inject({ method: 'GET', url: '/merchant/me', headers: owner() })).json();
    expect(keys(me.merchant)).toEqual([
      'accept_other_assets', 'convert_into', 'created_at', 'enabled_tokens', 'fee_bps', 'fees_paid_by_customer', 'hide_below_minimum',
      'id', 'live_enabled', 'name', 'payout_schedule', 'settlement', 'status', 'underpaid_tolerance_bps', 'updated_at',
    ]);
    const patched = (await inject({ method: 'PATCH', url: '/merchant/settings', headers: owner(), payload: { hide_below_minimum: true } })).json();
    expect(keys(patched.merchant)).toEqual(keys(me.merchant));
  });

  it('User: id, merchant_id, email, role, created_at; last_login_at once signed in', async () => {
    const member = await addMember(t.app, acct.accessToken, 'viewer');
    const added = await inject({ method: 'POST', url: '/merchant/users', headers: owner(), payload: { email: `v-${Date.now()}@example.com`, password: 'longenough1', role: 'viewer' } });
    expect(keys(added.json().user)).toEqual(['created_at', 'email', 'id', 'merchant_id', 'role']);
    await signIn(t.app, member.email);
    const users = (await inject({ method: 'GET', url: '/merchant/users', headers: owner() })).json().users as Json[];
    expect(keys(users.find((u) => u.id === member.id)!)).toEqual(['created_at', 'email', 'id', 'last_login_at', 'merchant_id', 'role']);
    expect(keys(users.find((u) => u.id === added.json().user.id)!)).toEqual(['created_at', 'email', 'id', 'merchant_id', 'role']);
  });

  it('Webhook: livemode, url (null until set), secret, created_at, updated_at, on /merchant and /v1', async () => {
    const expected = ['created_at', 'livemode', 'secret', 'updated_at', 'url'];
    const dash = (await inject({ method: 'GET', url: '/merchant/webhook?mode=test', headers: owner() })).json().webhook;
    expect(keys(dash)).toEqual(expected);
    expect(dash.url).toBeNull();
    const v1 = (await inject({ method: 'GET', url: '/v1/webhook', headers: keyHeader(acct.testKey) })).json().webhook;
    expect(keys(v1)).toEqual(expected);
  });

  it('Audit entry: id, at, action, actor, merchant_id and, when they apply, subject, before, after, note', async () => {
    const entries = (await inject({ method: 'GET', url: '/merchant/audit', headers: owner() })).json().entries as Json[];
    const settings = entries.find((e) => e.action === 'settings.updated')!;
    expect(keys(settings)).toEqual(expect.arrayContaining(['action', 'actor', 'at', 'id', 'merchant_id']));
    for (const e of entries) {
      for (const [k, v] of Object.entries(e)) expect(v, `${e.action}.${k}`).not.toBeNull();
      expect(keys(e).filter((k) => !['action', 'actor', 'at', 'id', 'merchant_id', 'subject', 'before', 'after', 'note', 'payment_id'].includes(k))).toEqual([]);
      expect(keys(e.actor).filter((k) => !['kind', 'id', 'merchant_id', 'ip', 'user_agent', 'request_id', 'email', 'role'].includes(k))).toEqual([]);
    }
    expect(keys(settings.actor)).toEqual(['email', 'id', 'ip', 'kind', 'merchant_id', 'request_id', 'role', 'user_agent']);
  });
});
