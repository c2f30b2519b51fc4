// Several processes on one database (spec 8 of DESIGN: scale out by running more copies): a client
// connected to process B receives an event committed and dispatched by process A, through
// PostgreSQL LISTEN/NOTIFY, and through Redis pub/sub when REDIS_URL is set.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type Database } from '../../src/platform/db/index.ts';
import { openTestDatabase, pgServerUrl } from '../harness/databases.ts';
import { freePort } from '../harness/process.ts';
import { signupAccount } from '../harness/accounts.ts';
import { ask, closeSockets, collect, commitEvent, connect, fakePayment, memberToken, next, startSocketApp, until, type SocketApp } from './realtime-support.ts';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/platform/db/index.ts';

const REDIS_SERVER = '/usr/bin/redis-server';

async function startRedis(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const { Redis } = await import('ioredis');
  for (let i = 0; i < 50; i++) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    try { await probe.connect(); await probe.quit(); return { url, child }; } catch { await new Promise((r) => setTimeout(r, 100)); }
  }
  child.kill();
  throw new Error('redis-server did not start');
}

for (const via of ['postgres', 'redis'] as const) {
  const skip = !pgServerUrl() ? 'no PostgreSQL server' : via === 'redis' && !fs.existsSync(REDIS_SERVER) ? `no ${REDIS_SERVER}` : '';
  if (skip) console.log(`realtime fan-out over ${via} skipped: ${skip}`);
  describe.skipIf(Boolean(skip))(`socket fan-out across processes over ${via}`, () => {
    let opened: Awaited<ReturnType<typeof openTestDatabase>>;
    let dbB: Database;
    let a: SocketApp;
    let b: SocketApp;
    let redis: { url: string; child: ChildProcess } | null = null;
    beforeAll(async () => {
      opened = await openTestDatabase('postgres');
      dbB = await openPostgres(opened.url!, { max: 4 });
      if (via === 'redis') redis = await startRedis();
      const env: Record<string, string> = redis ? { REDIS_URL: redis.url } : {};
      a = await startSocketApp(opened.db, { env });
      // B never dispatches: everything it emits came from A's dispatcher.
      b = await startSocketApp(dbB, { env, dispatch: false });
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
      await dbB?.close();
      await opened?.dispose();
      redis?.child.kill();
    });
    afterEach(() => closeSockets());

    it('delivers an event committed through process A to clients of A and of process B, once each, in order', async () => {
      expect(b.services.realtime.fanoutKind).toBe(via);
      const merchantId = (await signupAccount(a.app)).merchant.id;
      const p = fakePayment(merchantId);
      const clients = [a, b].map((app) => {
        app.payments.set(p.checkout_token as string, p);
        const s = connect(app.url);
        return { s, got: collect<{ type: string; id: string }>(s, 'payment:update') };
      });
      for (const c of clients) await ask(c.s, 'subscribe', p.checkout_token);
      await until(() => clients.every((c) => c.got.length === 1));
      for (const status of ['partially_paid', 'detecting', 'confirmed']) {
        await commitEvent(a.platform.db, { type: `payment.${status}`, merchantId, paymentId: p.id, data: { ...p, status } });
      }
      await until(() => clients.every((c) => c.got.length >= 4));
      await new Promise((r) => setTimeout(r, 150));
      for (const c of clients) {
        expect(c.got.map((u) => u.type)).toEqual(['payment.snapshot', 'payment.partially_paid', 'payment.detecting', 'payment.confirmed']);
      }
    });

    it('announces socket-only events to dashboards on A and B once each, in order, only when committed, never stored', async () => {
      const owner = await signupAccount(a.app);
      const merchantId = owner.merchant.id;
      const clients = await Promise.all([a, b].map(async (app) => {
        const s = connect(`${app.url}/merchant`, { auth: { token: (await memberToken(app, merchantId, 'viewer')).token } });
        await next(s, 'session');
        return collect<{ id: string }>(s, 'webhook:delivery');
      }));
      const eventsOf = async () => (await queryRows<{ n: number }>(a.platform.db.orm, sql`select count(*)::int as n from events where merchant_id = ${merchantId}`))[0].n;
      const before = await eventsOf();
      const outbox = a.platform.outbox;
      const announce = (ids: string[]) => a.platform.db.transaction((tx) =>
        outbox.announce(tx, ids.map((id) => ({ type: 'webhook:delivery', merchantId, livemode: false, data: { id }, at: new Date() }))));
      outbox.announced(await announce(['dlv_1', 'dlv_2']));
      // Rolled back: nobody may hear of it.
      await expect(a.platform.db.transaction(async (tx) => {
        await outbox.announce(tx, [{ type: 'webhook:delivery', merchantId, livemode: false, data: { id: 'dlv_rolled_back' }, at: new Date() }]);
        throw new Error('rolled back');
      })).rejects.toThrow('rolled back');
      // Enough of them to need several NOTIFY payloads, kept in order.
      const many = Array.from({ length: 40 }, (_, i) => `dlv_many_${i}_${'x'.repeat(400)}`);
      outbox.announced(await announce(many));
      await until(() => clients.every((got) => got.length >= 42));
      await new Promise((r) => setTimeout(r, 300));
      for (const got of clients) expect(got.map((d) => d.id)).toEqual(['dlv_1', 'dlv_2', ...many]);
      expect(await eventsOf()).toBe(before);
      // Too big for one NOTIFY payload: stored and dispatched through the outbox instead, still heard.
      const big = `dlv_big_${'y'.repeat(9000)}`;
      outbox.announced(await announce([big]));
      await until(() => clients.every((got) => got.length === 43));
      for (const got of clients) expect(got[42].id).toBe(big);
      expect(await eventsOf()).toBe(before + 1);
    });

    it('relays support typing from a member on A to a colleague and an operator on B, never stored', async () => {
      const owner = await signupAccount(a.app);
      const colleague = await memberToken(b, owner.merchant.id, 'viewer');
      const typist = connect(`${a.url}/merchant`, { auth: { token: owner.accessToken } });
      const listener = connect(`${b.url}/merchant`, { auth: { token: colleague.token } });
      const ops = connect(`${b.url}/admin`, { auth: { token: 'test-admin-token' } });
      await Promise.all([next(typist, 'session'), next(listener, 'session'), next(ops, 'connect')]);
      // whatever type a stored typing event would have: no row of the merchant's may appear
      const eventsOf = async () => (await queryRows<{ n: number }>(a.platform.db.orm, sql`select count(*)::int as n from events where merchant_id = ${owner.merchant.id}`))[0].n;
      const before = await eventsOf();
      const heard = collect(listener, 'support:typing');
      const opsHeard = collect(ops, 'support:typing');
      typist.emit('support:typing', { typing: true });
      await until(() => heard.length === 1 && opsHeard.length === 1);
      expect(heard[0]).toEqual({ side: 'merchant', name: owner.email, typing: true });
      expect(opsHeard[0]).toEqual({ merchant_id: owner.merchant.id, side: 'merchant', name: owner.email, typing: true });
      expect(await eventsOf()).toBe(before);
    });
  });
}
