// API keys and stores from the dashboard (spec 4.4 "API keys", "Stores").
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { addMember, keyHeader, randomIp, signupAccount, tokenHeader, type Account, type Member } from '../harness/accounts.ts';
import { apiRoute } from '../../src/accounts/index.ts';
import { auditEntries } from '../../src/accounts/schema.ts';
import { events } from '../../src/events/index.ts';
import { committedMeanwhile } from '../harness/lock-waits.ts';

describeEachDb('accounts api keys and stores', (h) => {
  let t: TestApp;
  let acct: Account;
  let dev: Member;
  let viewer: Member;
  beforeAll(async () => {
    t = await startTestApp(h.db(), {
      extraRoutes: (app, services) => {
        apiRoute(app, services.accounts.authn, { method: 'GET', url: '/v1/__whoami', readOnlyAllowed: true, handler: async (_q, _r, auth) => ({ key: auth.keyId, store: auth.storeId, livemode: auth.livemode }) });
      },
    });
    acct = await signupAccount(t.app);
    dev = await addMember(t.app, acct.accessToken, 'developer');
    viewer = await addMember(t.app, acct.accessToken, 'viewer');
  });
  afterAll(async () => { await t.close(); });

  const inject = (opts: InjectOptions) => t.app.inject({ remoteAddress: randomIp(), ...opts });
  const createKey = (token: string, payload: object, mode = '') => inject({ method: 'POST', url: `/merchant/api-keys${mode}`, headers: tokenHeader(token), payload });
  const listKeys = (token: string, mode = '') => inject({ method: 'GET', url: `/merchant/api-keys${mode}`, headers: tokenHeader(token) });
  const createStore = (token: string, payload: object) => inject({ method: 'POST', url: '/merchant/stores', headers: tokenHeader(token), payload });
  const whoami = (secret: string) => inject({ method: 'GET', url: '/v1/__whoami', headers: keyHeader(secret) });

  it('creates a test key only with ?mode=test: 201 {api_key, secret}, secret shown once', async () => {
    const res = await createKey(dev.accessToken, { label: 'server', access: 'read' }, '?mode=test');
    expect(res.statusCode).toBe(201);
    const { api_key: key, secret } = res.json();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(key).toMatchObject({ livemode: false, label: 'server', access: 'read', last4: secret.slice(-4), created_by: dev.id, merchant_id: acct.merchant.id });
    expect(key.secret).toBeUndefined();
    expect((await whoami(secret)).json()).toMatchObject({ key: key.id, livemode: false, store: null });
    const listed = (await listKeys(dev.accessToken, '?mode=test')).json().api_keys;
    expect(listed.map((k: { id: string }) => k.id)).toContain(key.id);
    expect(JSON.stringify(listed)).not.toContain(secret);
    const ev = await h.db().orm.select().from(events).where(and(eq(events.type, 'api_key:update'), eq(events.merchantId, acct.merchant.id)));
    expect(ev.length).toBeGreaterThan(0);
    expect(JSON.stringify(ev.map((e) => e.data))).not.toContain(secret);
    const [entry] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, key.id), eq(auditEntries.action, 'api_key.created')));
    expect(entry.actor).toMatchObject({ kind: 'merchant', id: dev.id, role: 'developer', email: dev.email });
    expect(JSON.stringify(entry)).not.toContain(secret);
  });

  it('records last_used_at when a key is used (written soon after the use, not before it)', async () => {
    const { api_key: key, secret } = (await createKey(dev.accessToken, { label: 'used' }, '?mode=test')).json();
    const before = Date.now();
    expect(key.last_used_at).toBeUndefined();
    expect((await whoami(secret)).statusCode).toBe(200);
    let seen: string | undefined;
    for (let i = 0; i < 50 && !seen; i++) {
      seen = (await listKeys(dev.accessToken, '?mode=test')).json().api_keys.find((k: { id: string }) => k.id === key.id)?.last_used_at;
      if (!seen) await new Promise((r) => setTimeout(r, 20));
    }
    expect(seen).toBeDefined();
    expect(Date.parse(seen!)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(seen!)).toBeLessThanOrEqual(Date.now());
  });

  it.each(['', '?mode=live', '?mode=TEST'])('creates a live key for mode %j, and lists live keys without mode=test', async (mode) => {
    const res = await createKey(acct.accessToken, {}, mode);
    expect(res.statusCode).toBe(201);
    expect(res.json().api_key).toMatchObject({ livemode: true, access: 'full' });
    const live = (await listKeys(acct.accessToken, mode)).json().api_keys;
    expect(live.every((k: { livemode: boolean }) => k.livemode)).toBe(true);
    expect(live.map((k: { id: string }) => k.id)).toContain(res.json().api_key.id);
  });

  it('creates a storefront key for one of its stores; 400 `unknown store_id` for another account\'s', async () => {
    const store = (await createStore(dev.accessToken, { name: 'Outlet' })).json().store;
    const res = await createKey(dev.accessToken, { store_id: store.id }, '?mode=test');
    expect(res.json().api_key.store_id).toBe(store.id);
    expect((await whoami(res.json().secret)).json().store).toBe(store.id);
    const other = await signupAccount(t.app);
    const foreign = (await createStore(other.accessToken, { name: 'Theirs' })).json().store;
    for (const store_id of [foreign.id, 'sto_nope', 7, '']) {
      const bad = await createKey(dev.accessToken, { store_id }, '?mode=test');
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toEqual({ error: 'unknown store_id' });
    }
  });

  it.each(['write', '', 1, ['full']])('answers 400 `access must be "full" or "read"` to %j', async (access) => {
    const res = await createKey(dev.accessToken, { access }, '?mode=test');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'access must be "full" or "read"' });
  });

  it.each(['x'.repeat(101), 7])('answers 400 `label must be text of up to 100 characters` to %j', async (label) => {
    const res = await createKey(dev.accessToken, { label }, '?mode=test');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'label must be text of up to 100 characters' });
  });

  it('revokes a key: 200 {message: api key revoked}, it stops at once even right after use', async () => {
    const { api_key: key, secret } = (await createKey(dev.accessToken, {}, '?mode=test')).json();
    expect((await whoami(secret)).statusCode).toBe(200);
    const revoking = Date.now();
    const res = await inject({ method: 'DELETE', url: `/merchant/api-keys/${key.id}`, headers: tokenHeader(dev.accessToken) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'api key revoked' });
    const after = await whoami(secret);
    expect(after.statusCode).toBe(401);
    expect(after.json()).toEqual({ error: 'invalid api key' });
    const listed = (await listKeys(dev.accessToken, '?mode=test')).json().api_keys.find((k: { id: string }) => k.id === key.id);
    // the time of the revocation, not merely a field
    expect(Date.parse(listed.revoked_at)).toBeGreaterThanOrEqual(revoking - 1000);
    expect(Date.parse(listed.revoked_at)).toBeLessThanOrEqual(Date.now());
    const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, key.id), eq(auditEntries.action, 'api_key.revoked')));
    expect(audit).toHaveLength(1);
  });

  it('answers 404 `not found` to revoking an unknown key or another account\'s', async () => {
    const other = await signupAccount(t.app);
    for (const id of ['key_nope', other.testKeyId]) {
      const res = await inject({ method: 'DELETE', url: `/merchant/api-keys/${id}`, headers: tokenHeader(acct.accessToken) });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not found' });
    }
    expect((await whoami(other.testKey)).statusCode).toBe(200);
  });

  it('keeps keys to owners and developers', async () => {
    for (const res of [await createKey(viewer.accessToken, {}), await listKeys(viewer.accessToken)]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'insufficient permissions' });
    }
  });

  it('creates (201 {store}), renames (200 {store}) and lists stores; audits and emits store:update', async () => {
    const res = await createStore(acct.accessToken, { name: '  Main street  ' });
    expect(res.statusCode).toBe(201);
    const store = res.json().store;
    expect(store).toMatchObject({ name: 'Main street', merchant_id: acct.merchant.id });
    expect(Object.keys(store).sort()).toEqual(['created_at', 'id', 'merchant_id', 'name', 'updated_at']);
    const renamed = await inject({ method: 'PATCH', url: `/merchant/stores/${store.id}`, headers: tokenHeader(dev.accessToken), payload: { name: 'High street' } });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().store.name).toBe('High street');
    const list = await inject({ method: 'GET', url: '/merchant/stores', headers: tokenHeader(viewer.accessToken) });
    expect(list.statusCode).toBe(200);
    expect(list.json().stores.find((s: { id: string }) => s.id === store.id).name).toBe('High street');
    const actions = (await h.db().orm.select().from(auditEntries).where(eq(auditEntries.subject, store.id))).map((e) => e.action).sort();
    expect(actions).toEqual(['store.created', 'store.updated']);
    const ev = await h.db().orm.select().from(events).where(and(eq(events.type, 'store:update'), eq(events.merchantId, acct.merchant.id)));
    expect(ev.length).toBeGreaterThanOrEqual(2);
  });

  it.each([
    [{}], [{ name: '' }], [{ name: '   ' }], [{ name: 'x'.repeat(101) }], [{ name: 42 }],
    // the limit is on the name as sent (the document's maxLength), not on what is left once trimmed
    [{ name: `${'x'.repeat(100)} ` }], [{ name: `\n${'x'.repeat(100)}` }],
  ])('answers 400 `name is required (up to 100 characters)` to %j', async (payload) => {
    const res = await createStore(acct.accessToken, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'name is required (up to 100 characters)' });
  });

  it('store name edge (spec 8 "1 to 100 characters", counted as characters, not UTF-16 units): 1 and 100 kept, 101 refused, on create and rename', async () => {
    const one = await createStore(acct.accessToken, { name: 'A' });
    expect(one.statusCode).toBe(201);
    expect(one.json().store.name).toBe('A');
    // 100 characters outside the BMP are 200 UTF-16 units: still 100 characters
    const astral = await createStore(acct.accessToken, { name: '😀'.repeat(100) });
    expect(astral.statusCode).toBe(201);
    expect((await createStore(acct.accessToken, { name: '😀'.repeat(101) })).json()).toEqual({ error: 'name is required (up to 100 characters)' });
    const rename = (name: string) => inject({ method: 'PATCH', url: `/merchant/stores/${one.json().store.id}`, headers: tokenHeader(acct.accessToken), payload: { name } });
    const at100 = await rename('y'.repeat(100));
    expect(at100.statusCode).toBe(200);
    expect(at100.json().store.name).toBe('y'.repeat(100));
    for (const long of ['y'.repeat(101), `${'y'.repeat(100)}  `]) {
      const at101 = await rename(long);
      expect(at101.statusCode).toBe(400);
      expect(at101.json()).toEqual({ error: 'name is required (up to 100 characters)' });
    }
    // 100 as sent, white space at either end included; stored trimmed
    const padded = await rename(` ${'é'.repeat(98)} `);
    expect(padded.statusCode).toBe(200);
    expect(padded.json().store.name).toBe('é'.repeat(98));
    const empty = await rename('');
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toEqual({ error: 'name is required (up to 100 characters)' });
  });

  it('accepts a 100-character name; 404 `not found` renaming another account\'s store; viewers may not create', async () => {
    expect((await createStore(acct.accessToken, { name: 'é'.repeat(100) })).statusCode).toBe(201);
    const other = await signupAccount(t.app);
    const theirs = (await createStore(other.accessToken, { name: 'Theirs' })).json().store;
    const res = await inject({ method: 'PATCH', url: `/merchant/stores/${theirs.id}`, headers: tokenHeader(acct.accessToken), payload: { name: 'Mine' } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not found' });
    expect((await createStore(viewer.accessToken, { name: 'V' })).statusCode).toBe(403);
  });
  // Another rename committed while this one waits (a second dashboard tab): the audit's `before` is
  // what this rename replaced, so the trail reads Old -> Other -> New, never Old -> New twice.
  it.skipIf(h.kind !== 'postgres')('audits the store as it was when the rename was made, with a rename committed meanwhile', async () => {
    const store = (await createStore(dev.accessToken, { name: 'Old' })).json().store;
    const res = await committedMeanwhile(h.db(), h.url()!, `update stores set name = 'Other' where id = $1`, [store.id],
      () => inject({ method: 'PATCH', url: `/merchant/stores/${store.id}`, headers: tokenHeader(dev.accessToken), payload: { name: 'New' } }));
    expect(res.statusCode).toBe(200);
    const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, store.id), eq(auditEntries.action, 'store.updated')));
    expect([(audit.before as { name: string }).name, (audit.after as { name: string }).name]).toEqual(['Other', 'New']);
  });
});
