// The test ping's fast path (src/webhooks/ping.ts): pings that arrive together go in as one
// statement, and a ping this process's worker has room for goes in already claimed by it (still
// `pending`, under a claim and a lease) and is attempted without a claim statement. What must hold:
// the claim loop leaves such a row to its process until the lease runs out (a process that died
// after the insert loses nothing), the record is still a compare-and-set on the claim, a host's
// backlog bounds what is handed over, and a stale URL or secret in a group fails only its own ping.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { eq, inArray, sql } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { Receiver } from '../harness/webhooks.ts';
import { newEventId } from '../../src/platform/ids.ts';
import { deliveries, verifyWebhook, webhooks, type DeliveryRow } from '../../src/webhooks/index.ts';
import { deliveryJson } from '../../src/webhooks/delivery-json.ts';
import { claimDue } from '../../src/webhooks/delivery-queue.ts';
import { DeliveryWorker } from '../../src/webhooks/worker.ts';
import { PingQueue, type Ping, type Reservation } from '../../src/webhooks/ping.ts';

/** Long enough that a loaded machine still reads a hanging attempt's row before the attempt times out. */
const TIMEOUT_MS = 2000;

describeEachDb('test ping: grouped, and handed to the worker as it goes in', (h) => {
  let t: TestApp;
  let rx: Receiver;
  let acct: Account;

  beforeAll(async () => {
    t = await startTestApp(h.db(), { env: { WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) } });
    rx = await Receiver.start();
  });
  afterAll(async () => { await t.close(); await rx.close(); });
  beforeEach(async () => {
    // Each test starts from an empty queue: a worker started here would otherwise take earlier tests' rows.
    await h.db().orm.delete(deliveries);
    rx.got.length = 0;
    rx.behaviour = { status: 200, body: 'ok' };
    acct = await signupAccount(t.app);
    await setUrl(acct, rx.url);
  });

  const setUrl = async (a: Account, url: string) => {
    const res = await t.app.inject({ method: 'PUT', url: '/v1/webhook', headers: keyHeader(a.testKey), remoteAddress: randomIp(), payload: { url } });
    expect(res.statusCode).toBe(200);
  };
  const ping = (a: Account) => t.app.inject({ method: 'POST', url: '/v1/webhook/test', headers: keyHeader(a.testKey), remoteAddress: randomIp() });
  const rowsOf = (merchantId: string): Promise<DeliveryRow[]> => h.db().orm.select().from(deliveries).where(eq(deliveries.merchantId, merchantId));
  const rowOf = async (id: string): Promise<DeliveryRow> => (await h.db().orm.select().from(deliveries).where(eq(deliveries.id, id)))[0];
  /**
   * Runs `fn` with a started worker of its own (one slot per host, so its backlog is small; no poll)
   * and a ping queue, both on the service's endpoints; the worker is stopped after.
   */
  const withOwnWorker = async (fn: (worker: DeliveryWorker, queue: PingQueue) => Promise<void>) => {
    const worker = new DeliveryWorker(h.db(), t.platform.outbox, t.platform.clock, t.platform.log, t.services.webhooks.endpoints, {
      timeoutMs: TIMEOUT_MS, retryDelaysS: t.config.webhookRetryDelaysS, allowPrivate: true, maxPerHost: 1, pollMs: 60_000,
    });
    worker.start();
    try {
      await fn(worker, new PingQueue(h.db(), t.services.webhooks.endpoints));
    } finally {
      await worker.stop(0);
      await worker.idle();
    }
  };
  const newPing = (): Ping => {
    const at = new Date();
    return { merchantId: acct.merchant.id, livemode: false, eventId: newEventId(at), eventType: 'ping', payload: '{"type":"ping"}', at };
  };
  const arrived = (id: string) => waitUntil(async () => rx.got.some((g) => g.headers['x-webhook-id'] === id));
  const waitUntil = async (what: () => Promise<boolean>, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await what())) {
      if (Date.now() > deadline) throw new Error('condition not reached in time');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('goes in claimed by the running worker, still pending, and is attempted with no claim of the queue', async () => {
    const worker = t.services.webhooks.worker;
    worker.start();
    rx.behaviour = 'hang';
    try {
      const res = await ping(acct);
      expect(res.statusCode).toBe(202);
      expect(res.json().delivery).toMatchObject({ status: 'pending', attempts: 0 });
      await rx.waitFor(1);
      // In flight: the row is `pending` under a claim and a lease (a claim of the queue makes it `sending`).
      const during = await rowOf(res.json().delivery.id);
      expect(during).toMatchObject({ status: 'pending', attempts: 0 });
      expect(during.claim).toMatch(/^[0-9a-f]{24}$/);
      expect(during.leaseUntil!.getTime()).toBeGreaterThan(Date.now());
      expect(rx.got[0].headers['x-webhook-id']).toBe(res.json().delivery.id);
      // The 202 answered the row as stored.
      expect(res.json().delivery).toEqual(JSON.parse(JSON.stringify(deliveryJson(during))));
      await waitUntil(async () => (await rowOf(during.id)).attempts === 1);
      expect(await rowOf(during.id)).toMatchObject({ status: 'pending', attempts: 1, claim: null, leaseUntil: null, lastError: `timeout after ${TIMEOUT_MS} ms` });
    } finally {
      await worker.stop(0);
    }
  });

  it('with no worker running here, goes in unclaimed for whichever worker looks next', async () => {
    const res = await ping(acct);
    expect(res.statusCode).toBe(202);
    expect(await rowOf(res.json().delivery.id)).toMatchObject({ status: 'pending', claim: null, leaseUntil: null });
  });

  it('is left to its process by the queue until the lease runs out, then taken and attempted (the process died after the insert)', async () => {
    const queue = new PingQueue(h.db(), t.services.webhooks.endpoints);
    const leaseUntil = new Date(Date.now() + 60_000);
    // The process dies once the row is in: its worker never starts the attempt.
    const dying: Reservation = { claim: 'f'.repeat(24), leaseUntil, start: () => undefined, cancel: () => undefined };
    const row = (await queue.queue(newPing(), () => dying))!;
    expect(await rowOf(row.id)).toMatchObject({ status: 'pending', claim: 'f'.repeat(24), leaseUntil });
    expect((await claimDue(h.db(), new Date(), 60_000, 10, [])).map((c) => c.row.id)).not.toContain(row.id);
    const taken = await claimDue(h.db(), new Date(leaseUntil.getTime() + 1), 60_000, 10, []);
    expect(taken.map((c) => c.row.id)).toContain(row.id);
    // Given back, the lease set in the past: a worker's next look attempts it once.
    await h.db().orm.update(deliveries).set({ status: 'pending', claim: 'f'.repeat(24), leaseUntil: new Date(Date.now() - 1000) }).where(eq(deliveries.id, row.id));
    await t.services.webhooks.worker.runDue();
    expect(rx.got.filter((g) => g.headers['x-webhook-id'] === row.id).map((g) => g.headers['x-webhook-attempt'])).toEqual(['1']);
    expect(await rowOf(row.id)).toMatchObject({ status: 'delivered', attempts: 1, claim: null });
  });

  it('records its attempt only while the claim holds: a redelivery meanwhile keeps the redelivered state', async () => {
    rx.behaviour = 'hang';
    await withOwnWorker(async (worker, queue) => {
      const row = (await queue.queue(newPing(), (host) => worker.reserve(host)))!;
      expect(row.claim).not.toBeNull();
      await rx.waitFor(1);
      // The service's own worker is not running, so the redelivered row waits in the queue.
      const again = await t.app.inject({ method: 'POST', url: `/merchant/webhooks/deliveries/${row.id}/redeliver`, headers: tokenHeader(acct.accessToken) });
      expect(again.statusCode).toBe(202);
      await waitUntil(async () => (await rowOf(row.id)).history.length === 2);
      const after = await rowOf(row.id);
      expect(after).toMatchObject({ status: 'pending', attempts: 0, claim: null, leaseUntil: null, lastError: null });
      expect(after.history[1]).toMatchObject({ error: `timeout after ${TIMEOUT_MS} ms`, note: 'recorded late: the delivery was redelivered or taken over meanwhile' });
    });
  });

  it('waits in its host\'s backlog when the host has no free slot, and goes in unclaimed once that backlog is full', async () => {
    rx.behaviour = 'hang';
    await withOwnWorker(async (worker, queue) => {
      // One slot and a backlog of two rounds of one slot: three handed over, the fourth left to the queue.
      const rows: DeliveryRow[] = [];
      for (let i = 0; i < 4; i++) rows.push((await queue.queue(newPing(), (host) => worker.reserve(host)))!);
      expect(rows.map((r) => r.claim !== null)).toEqual([true, true, true, false]);
      const stored = await Promise.all(rows.map((r) => rowOf(r.id)));
      expect(stored.map((r) => [r.status, r.claim])).toEqual(rows.map((r) => ['pending', r.claim]));
      await rx.waitFor(1);
      expect(rx.got.map((g) => g.headers['x-webhook-id'])).toEqual([rows[0].id]);
      // The first times out; the second starts in the freed slot, still with no claim of the queue.
      await rx.waitFor(2);
      expect(rx.got[1].headers['x-webhook-id']).toBe(rows[1].id);
      expect(await rowOf(rows[1].id)).toMatchObject({ status: 'pending', claim: rows[1].claim });
      // Stopping gives the one still waiting back to the queue.
      await worker.stop(0);
      expect(await rowOf(rows[2].id)).toMatchObject({ status: 'pending', claim: null, leaseUntil: null, attempts: 0 });
      expect(rx.got.map((g) => g.headers['x-webhook-id'])).not.toContain(rows[2].id);
    });
  });

  it('goes back to the queue at once, unattempted, when the worker stopped while the row went in', async () => {
    await withOwnWorker(async (worker, queue) => {
      // The process begins to shut down between the reservation and the insert's answer.
      const row = (await queue.queue(newPing(), (host) => { const r = worker.reserve(host); void worker.stop(0); return r; }))!;
      expect(row.claim).not.toBeNull();
      await waitUntil(async () => (await rowOf(row.id)).claim === null);
      expect(await rowOf(row.id)).toMatchObject({ status: 'pending', attempts: 0, leaseUntil: null });
      await worker.idle();
      expect(rx.got).toEqual([]);
      expect(worker.limiter.inFlight).toBe(0);
    });
  });

  it('gives the slot back when the insert fails, so the host is not held by a ping that never went in', async () => {
    await withOwnWorker(async (worker, queue) => {
      const first = newPing();
      expect(await queue.queue(first, (host) => worker.reserve(host))).not.toBeNull();
      await rx.waitFor(1);
      await worker.idle();
      // The same event id again: the unique index refuses the row.
      await expect(queue.queue({ ...first, at: new Date() }, (host) => worker.reserve(host))).rejects.toThrow();
      expect(worker.limiter.inFlight).toBe(0);
      const again = worker.reserve(new URL(rx.url).hostname);
      expect(again).not.toBeNull();
      again!.cancel();
    });
  });

  it('sends the pings that arrive together as one statement, each answered its own row', async () => {
    const others = await Promise.all([0, 1, 2].map(() => signupAccount(t.app)));
    for (const o of others) await setUrl(o, rx.url);
    const all = [acct, ...others];
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => ping(all[i % all.length])));
    expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 202));
    const ids = answers.map((a) => a.json().delivery.id as string);
    const stored = await h.db().orm.select({ id: deliveries.id, merchantId: deliveries.merchantId, tx: sql<string>`xmin::text` })
      .from(deliveries).where(inArray(deliveries.id, ids));
    expect(stored).toHaveLength(24);
    // Rows written by one statement share its transaction.
    expect(new Set(stored.map((r) => r.tx)).size).toBeLessThan(24);
    for (const [i, a] of answers.entries()) {
      const row = await rowOf(ids[i]);
      expect(row.merchantId).toBe(all[i % all.length].merchant.id);
      expect(a.json().delivery).toEqual(JSON.parse(JSON.stringify(deliveryJson(row))));
    }
  });

  it('inserts the rest of a group when one ping\'s URL changed in another process, and that one again with the new URL', async () => {
    const other = await signupAccount(t.app);
    await setUrl(other, rx.url);
    // Both endpoints are read and remembered by this process.
    expect((await ping(acct)).statusCode).toBe(202);
    expect((await ping(other)).statusCode).toBe(202);
    const moved = 'https://hooks.example.com/moved';
    await h.db().orm.update(webhooks).set({ url: moved }).where(eq(webhooks.merchantId, other.merchant.id));
    const [a, b] = await Promise.all([ping(acct), ping(other)]);
    expect([a.statusCode, b.statusCode]).toEqual([202, 202]);
    expect(a.json().delivery.url).toBe(rx.url);
    expect(b.json().delivery.url).toBe(moved);
    expect((await rowOf(b.json().delivery.id)).url).toBe(moved);
    expect((await rowsOf(other.merchant.id)).filter((r) => r.url === moved)).toHaveLength(1);
  });

  it('signs with a secret rolled in another process since this one read the endpoint', async () => {
    const worker = t.services.webhooks.worker;
    worker.start();
    const second = await startTestApp(h.db());
    try {
      const first = await ping(acct);
      expect(first.statusCode).toBe(202);
      await arrived(first.json().delivery.id);
      const rolled = await second.app.inject({ method: 'POST', url: '/merchant/webhook/roll-secret?mode=test', headers: tokenHeader(acct.accessToken) });
      expect(rolled.statusCode).toBe(200);
      const fresh = rolled.json().webhook.secret as string;
      const res = await ping(acct);
      expect(res.statusCode).toBe(202);
      await arrived(res.json().delivery.id);
      const got = rx.got.find((g) => g.headers['x-webhook-id'] === res.json().delivery.id)!;
      expect(verifyWebhook(got.body, got.headers['x-webhook-signature'] as string, fresh).ok).toBe(true);
    } finally {
      await second.close();
      await worker.stop(0);
    }
  });
});
