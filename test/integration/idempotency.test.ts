// Idempotency-Key on POST /v1 and /merchant (CONTRACT "Developer platform"): replay for 24 hours,
// 422 for another request, 409 while the first runs, one payment however many repeats race, across
// two app instances on one database and after a restart.
import crypto from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { ManualClock } from '../../src/platform/clock.ts';
import pg from 'pg';
import { openPostgres, queryRows, queryText, type Database } from '../../src/platform/db/index.ts';
import { payments } from '../../src/payments/index.ts';
import { stores } from '../../src/accounts/index.ts';
import { insertApiKey } from '../../src/accounts/api-keys.ts';
import {
  createIdempotencyStore, IDEMPOTENCY_KEY_IN_PROGRESS, IDEMPOTENCY_KEY_LENGTH, IDEMPOTENCY_KEY_REUSED,
  IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_TTL_MS, RequestFingerprints,
} from '../../src/idempotency/index.ts';
import { canonicalJson } from '../../src/idempotency/fingerprint.ts';
import { SecretBox } from '../../src/webhooks/index.ts';
import { describeEachDb } from '../harness/databases.ts';
import { ADDR } from '../harness/settlement.ts';
import { RECHECK_MAX_FAILURES, RECHECK_WINDOW_MS } from '../../src/accounts/index.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signIn, signupAccount, tokenHeader, uid, type Account } from '../harness/accounts.ts';

/** A request's fingerprint as rows written before fingerprints were keyed hold it: a plain SHA-256. */
const plainFingerprint = (method: string, url: string, body: unknown) => crypto.createHash('sha256').update(`${method} ${url}\n${canonicalJson(body)}`).digest('hex');

describeEachDb('idempotency keys', (h) => {
  let t: TestApp;
  let acct: Account;
  const clock = new ManualClock(new Date());
  let probeCalls = 0;
  beforeAll(async () => {
    t = await startTestApp(h.db(), {
      clock,
      // A route that fails on our side once, then answers: a 5xx must not be kept.
      extraRoutes: (app) => {
        app.post('/v1/_probe', {
          onRequest: async (req) => { req.auth = { kind: 'api_key', merchantId: acct.merchant.id, livemode: false } as never; },
        }, async (_req, reply) => (++probeCalls === 1 ? reply.code(500).send({ error: 'internal error' }) : { calls: probeCalls }));
      },
    });
    acct = await signupAccount(t.app);
  });
  beforeEach(() => { clock.advance(1100); });
  afterAll(async () => { await t.close(); });

  const create = (app: FastifyInstance, key: string | undefined, body: Record<string, unknown>, apiKey = acct.testKey) => app.inject({
    method: 'POST', url: '/v1/payments',
    headers: { ...keyHeader(apiKey), ...(key === undefined ? {} : { 'idempotency-key': key }) },
    payload: body,
  });
  const paymentsOfOrder = async (orderId: string) => (await h.db().orm.select({ id: payments.id }).from(payments)
    .where(and(eq(payments.merchantId, acct.merchant.id), eq(payments.orderId, orderId)))).length;
  const order = () => ({ order_id: `o-${uid()}`, amount_usd: '25', token: 'ETH' });

  it('replays the first answer for the same key and body, with Idempotent-Replayed: true', async () => {
    const key = `k-${uid()}`;
    const body = order();
    const first = await create(t.app, key, body);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same body with its keys in another order is the same request.
    const again = await create(t.app, key, { token: body.token, amount_usd: body.amount_usd, order_id: body.order_id });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toBe(first.body);
    expect(await paymentsOfOrder(body.order_id)).toBe(1);
  });

  it('answers 422 for the same key with a different body', async () => {
    const key = `k-${uid()}`;
    const body = order();
    expect((await create(t.app, key, body)).statusCode).toBe(201);
    const other = await create(t.app, key, { ...body, amount_usd: '26' });
    expect(other.statusCode).toBe(422);
    // CONTRACT.md's words, written out: the constant alone would pass with a mistyped message
    expect(other.json()).toEqual({ error: 'this Idempotency-Key was used with a different request' });
    expect(await paymentsOfOrder(body.order_id)).toBe(1);
  });

  it('keeps error answers too: a 400 is replayed, not run again', async () => {
    const key = `k-${uid()}`;
    const first = await create(t.app, key, { amount_usd: 'lots' });
    expect(first.statusCode).toBe(400);
    const again = await create(t.app, key, { amount_usd: 'lots' });
    expect(again.statusCode).toBe(400);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it('checks the key: 1 to 255 characters', async () => {
    for (const bad of ['', 'x'.repeat(256)]) {
      const res = await create(t.app, bad, order());
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'Idempotency-Key must be 1 to 255 characters' });
    }
    expect((await create(t.app, `${uid()}${'y'.repeat(245)}`, order())).statusCode).toBe(201);
  });

  it('without the header, every POST runs', async () => {
    const body = order();
    expect((await create(t.app, undefined, body)).statusCode).toBe(201);
    clock.advance(1100);
    const second = await create(t.app, undefined, body);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
  });

  it('keeps keys per merchant: another merchant with the same key runs its own request', async () => {
    const other = await signupAccount(t.app);
    const key = `k-${uid()}`;
    const body = order();
    expect((await create(t.app, key, body)).statusCode).toBe(201);
    const theirs = await create(t.app, key, body, other.testKey);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });

  // A storefront key's answer is its store's payment: another store of the merchant (or an
  // account-wide key) repeating the key and body must not be handed it.
  it('keeps the store in the match: another store with the same key and body is told 422, not given the first store\'s answer', async () => {
    const db = h.db().orm;
    const now = clock.now();
    const [storeA, storeB] = [`sto_${uid()}`, `sto_${uid()}`];
    await db.insert(stores).values([storeA, storeB].map((id, i) => ({ id, merchantId: acct.merchant.id, name: `S${i}`, createdAt: now, updatedAt: now })));
    const keyOf = async (storeId: string) => (await insertApiKey(db, { merchantId: acct.merchant.id, livemode: false, storeId, label: storeId, access: 'full', createdBy: null, at: now })).secret;
    const [keyA, keyB] = [await keyOf(storeA), await keyOf(storeB)];
    const key = `k-${uid()}`;
    const body = order();
    const first = await create(t.app, key, body, keyA);
    expect(first.statusCode).toBe(201);
    expect(first.json().store_id).toBe(storeA);
    for (const other of [keyB, acct.testKey]) {
      const res = await create(t.app, key, body, other);
      expect([res.statusCode, res.json()]).toEqual([422, { error: IDEMPOTENCY_KEY_REUSED }]);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    // The first store's own repeat is still replayed.
    expect((await create(t.app, key, body, keyA)).headers['idempotent-replayed']).toBe('true');
    expect(await paymentsOfOrder(body.order_id)).toBe(1);
  });

  it('replays for 24 hours, then the key is new again', async () => {
    const key = `k-${uid()}`;
    const body = order();
    const first = await create(t.app, key, body);
    clock.advance(IDEMPOTENCY_TTL_MS - 2000);
    expect((await create(t.app, key, body)).headers['idempotent-replayed']).toBe('true');
    clock.advance(3000);
    const later = await create(t.app, key, body);
    // It ran: the payments service itself answers a known order_id with 200 and that payment.
    expect(later.statusCode).toBe(200);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.json().id).toBe(first.json().id);
  });

  it('answers 409 while the first request holds the key; a key left by a dead process frees after the lease', async () => {
    const key = `k-${uid()}`;
    const body = order();
    // Another process is running this request right now.
    const elsewhere = createIdempotencyStore(h.db(), clock, t.config.authSecret);
    const scope = { merchantId: acct.merchant.id, livemode: false, key };
    expect(await elsewhere.claim(scope, new RequestFingerprints(t.config.authSecret).of('POST', '/v1/payments', body))).toEqual({ kind: 'claimed' });
    const busy = await create(t.app, key, body);
    expect(busy.statusCode).toBe(409);
    expect(busy.json()).toEqual({ error: 'a request with this Idempotency-Key is in progress' });
    // A different request under the running key is still a different request.
    expect((await create(t.app, key, { ...body, amount_usd: '9' })).statusCode).toBe(422);
    expect(await paymentsOfOrder(body.order_id)).toBe(0);
    // That process died; after the lease the repeat runs.
    clock.advance(IDEMPOTENCY_LEASE_MS);
    const res = await create(t.app, key, body);
    expect(res.statusCode).toBe(201);
    expect(await paymentsOfOrder(body.order_id)).toBe(1);
  });

  it('concurrent repeats create one payment: the others are replayed or told 409', async () => {
    const key = `k-${uid()}`;
    const body = order();
    const answers = await Promise.all(Array.from({ length: 8 }, () => create(t.app, key, body)));
    const ran = answers.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(ran).toHaveLength(1);
    for (const r of answers) {
      expect([201, 409]).toContain(r.statusCode);
      if (r.statusCode === 201) expect(r.json().id).toBe(ran[0].json().id);
      else expect(r.json()).toEqual({ error: IDEMPOTENCY_KEY_IN_PROGRESS });
    }
    expect(await paymentsOfOrder(body.order_id)).toBe(1);
  });

  it('does not keep a failure on our side: the repeat runs again', async () => {
    const headers = { ...keyHeader(acct.testKey), 'idempotency-key': `k-${uid()}` };
    const first = await t.app.inject({ method: 'POST', url: '/v1/_probe', headers, payload: {} });
    expect(first.statusCode).toBe(500);
    const second = await t.app.inject({ method: 'POST', url: '/v1/_probe', headers, payload: {} });
    expect(second.statusCode).toBe(200);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    const third = await t.app.inject({ method: 'POST', url: '/v1/_probe', headers, payload: {} });
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect(third.json()).toEqual(second.json());
  });

  it('does not keep a 429: once the limit has passed, the repeat runs again', async () => {
    const owner = await signupAccount(t.app);
    const add = (token: string, key: string | undefined, password: string) => t.app.inject({
      method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(),
      headers: { ...tokenHeader(token), ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload: { token: 'USDT_TRC20', address: ADDR.TRON, password },
    });
    for (let i = 0; i < RECHECK_MAX_FAILURES; i++) expect((await add(owner.accessToken, undefined, 'wrong-password-1')).statusCode).toBe(403);
    const key = `k-${uid()}`;
    const limited = await add(owner.accessToken, key, owner.password);
    expect(limited.statusCode).toBe(429);
    clock.advance(RECHECK_WINDOW_MS + 1000);
    const { accessToken } = await signIn(t.app, owner.email);
    const again = await add(accessToken, key, owner.password);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    // That answer is the one kept.
    const replayed = await add(accessToken, key, owner.password);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toBe(again.body);
  });

  it('covers /merchant POSTs per merchant and mode; the stored answer is sealed at rest', async () => {
    const key = `k-${uid()}`;
    const { accessToken } = await signIn(t.app, acct.email);
    const post = (mode: string, name: string) => t.app.inject({
      method: 'POST', url: `/merchant/stores${mode}`, headers: { ...tokenHeader(accessToken), 'idempotency-key': key }, payload: { name },
    });
    const name = `Store ${uid()}`;
    const first = await post('', name);
    expect(first.statusCode).toBe(201);
    const again = await post('', name);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().store.id).toBe(first.json().store.id);
    // The test mode of the same merchant is another scope.
    const testMode = await post('?mode=test', name);
    expect(testMode.headers['idempotent-replayed']).toBeUndefined();
    const rows = await queryRows<{ sealed_body: string }>(h.db().orm, sql`select sealed_body from idempotency_keys where key = ${key}`);
    expect(rows).toHaveLength(2);
    for (const r of rows) expect(r.sealed_body).not.toContain(first.json().store.id);
  });

  // Bodies carry passwords (a password re-check): the table keeps no plain hash to test guesses against.
  it('stores a keyed fingerprint: a body with a password is not kept as its plain SHA-256', async () => {
    const key = `k-${uid()}`;
    const owner = await signupAccount(t.app);
    const body = { token: 'USDT_TRC20', address: ADDR.TRON, password: owner.password };
    const res = await t.app.inject({
      method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(),
      headers: { ...tokenHeader(owner.accessToken), 'idempotency-key': key }, payload: body,
    });
    expect(res.statusCode).toBe(201);
    const [row] = await queryRows<{ fingerprint: string }>(h.db().orm, sql`select fingerprint from idempotency_keys where merchant_id = ${owner.merchant.id} and key = ${key}`);
    expect(row.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(row.fingerprint).not.toBe(plainFingerprint('POST', '/merchant/payout-addresses', body));
  });

  // Rows written before fingerprints were keyed hold a plain SHA-256 and are kept 24 hours: a
  // repeat across the upgrade is still the same request.
  it('a row stored before the upgrade (plain SHA-256 fingerprint) still replays, and still refuses another request', async () => {
    const key = `k-${uid()}`;
    const body = order();
    const now = clock.now();
    const answer = JSON.stringify({ id: `pay_${uid()}`, order_id: body.order_id });
    const sealed = new SecretBox(t.config.authSecret, { salt: 'gateway idempotent answers', info: 'stored answer encryption v1' })
      .seal(answer, `${acct.merchant.id}:test:${key}`);
    await h.db().orm.execute(sql`insert into idempotency_keys (merchant_id, livemode, key, fingerprint, state, status_code, content_type, sealed_body, created_at, expires_at)
      values (${acct.merchant.id}, false, ${key}, ${plainFingerprint('POST', '/v1/payments', body)}, 'done', 201, 'application/json; charset=utf-8', ${sealed},
        ${now.toISOString()}, ${new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString()})`);
    const again = await create(t.app, key, body);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(answer);
    const other = await create(t.app, key, { ...body, amount_usd: '26' });
    expect([other.statusCode, other.json()]).toEqual([422, { error: IDEMPOTENCY_KEY_REUSED }]);
    expect(await paymentsOfOrder(body.order_id)).toBe(0);
  });

  it('a key held before the upgrade by a process that died frees after the lease for the same request', async () => {
    const key = `k-${uid()}`;
    const body = order();
    const now = clock.now();
    await h.db().orm.execute(sql`insert into idempotency_keys (merchant_id, livemode, key, fingerprint, state, locked_until, created_at, expires_at)
      values (${acct.merchant.id}, false, ${key}, ${plainFingerprint('POST', '/v1/payments', body)}, 'running',
        ${new Date(now.getTime() + IDEMPOTENCY_LEASE_MS).toISOString()}, ${now.toISOString()}, ${new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString()})`);
    expect((await create(t.app, key, body)).statusCode).toBe(409);
    clock.advance(IDEMPOTENCY_LEASE_MS);
    const res = await create(t.app, key, body);
    expect(res.statusCode).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await paymentsOfOrder(body.order_id)).toBe(1);
  });

  it('routes without a credential check the key and never store it', async () => {
    const headers = { 'idempotency-key': `k-${uid()}` };
    const login = () => t.app.inject({ method: 'POST', url: '/merchant/login', remoteAddress: randomIp(), headers, payload: { email: acct.email, password: acct.password } });
    const a = await login();
    const b = await login();
    expect(a.statusCode).toBe(200);
    expect(b.statusCode).toBe(200);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json().access_token).not.toBe(a.json().access_token);
    const bad = await t.app.inject({ method: 'POST', url: '/merchant/login', remoteAddress: randomIp(), headers: { 'idempotency-key': '' }, payload: {} });
    expect(bad.json()).toEqual({ error: IDEMPOTENCY_KEY_LENGTH });
  });

  // A statement prepared once per connection keeps the plan it got when the table was small: the
  // stored answer's update then read the whole table for every group of answers, slower with each
  // key kept (a day's worth). Each statement is planned against the table as it is now.
  it.skipIf(h.kind === 'pglite')('stores an answer by the key, not by reading the table, however much the table grew since the first', async () => {
    // one connection: every statement of the store goes to the backend whose counters are read
    const one: Database = await openPostgres(h.url()!, { max: 1 });
    const admin = new pg.Client({ connectionString: h.url()! });
    await admin.connect();
    try {
      const store = createIdempotencyStore(one, clock, 'idempotency-plan-test-secret-0123456789');
      const answer = { statusCode: 201, contentType: 'application/json', body: '{"id":"pay_x"}' };
      const claimAndAnswer = async (n: number) => {
        for (let i = 0; i < n; i++) {
          const scope = { merchantId: acct.merchant.id, livemode: false, key: `plan-${uid()}` };
          expect((await store.claim(scope, { current: 'fingerprint', legacy: 'legacy' })).kind).toBe('claimed');
          await store.complete(scope, answer);
        }
      };
      // the counters of this table as the server has them once the connection reported its own
      const counters = async (updatesAtLeast: number) => {
        await queryText(one, null, 'select pg_stat_force_next_flush()', []);
        return vi.waitFor(async () => {
          const { rows: [c] } = await admin.query<{ upd: string; read: string }>(
            `select n_tup_upd as upd, seq_tup_read as read from pg_stat_user_tables where relname = 'idempotency_keys'`);
          expect(Number(c.upd), 'the statistics show the updates').toBeGreaterThanOrEqual(updatesAtLeast);
          return { updates: Number(c.upd), seqRead: Number(c.read) };
        }, { timeout: 10_000, interval: 20 });
      };
      const initial = await counters(0);
      await claimAndAnswer(10);
      await admin.query(`insert into idempotency_keys (merchant_id, livemode, key, fingerprint, state, status_code, content_type, sealed_body, created_at, expires_at)
        select $1, false, 'grown-' || g, 'f', 'done', 201, 'application/json', repeat('x', 200), now(), now() + interval '1 day' from generate_series(1, 20000) g`, [acct.merchant.id]);
      const before = await counters(initial.updates + 10);
      await claimAndAnswer(10);
      const after = await counters(before.updates + 10);
      // by the key: a handful of rows at most; reading the table: 20,000 rows for each answer
      expect(after.seqRead - before.seqRead).toBeLessThan(20_000);
    } finally {
      await admin.end();
      await one.close();
    }
  });

  it.skipIf(h.kind === 'pglite')('two processes on one database: racing repeats run once, and a restarted process replays', async () => {
    // A second app with its own connection pool: what another process would have.
    const otherDb: Database = await openPostgres(h.url()!, { max: 4 });
    const other = await startTestApp(otherDb, { clock });
    try {
      const key = `k-${uid()}`;
      const body = order();
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => create(i % 2 ? other.app : t.app, key, body)));
      expect(answers.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
      expect(await paymentsOfOrder(body.order_id)).toBe(1);
      const first = answers.find((r) => r.statusCode === 201)!;
      // A process started after the answer (nothing in memory) replays it from the database.
      await other.close();
      const restarted = await startTestApp(otherDb, { clock });
      try {
        clock.advance(1100);
        const replay = await create(restarted.app, key, body);
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect(replay.json().id).toBe(first.json().id);
      } finally { await restarted.close(); }
    } finally {
      await otherDb.close();
    }
  });
});
