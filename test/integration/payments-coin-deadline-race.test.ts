// A coin chosen in the last moment of the hour to choose one while the deadline's timer runs
// (spec 3: the coin choice moves a payment without a coin to pending with 15 minutes ahead; the
// deadline expires one that never chose). Both touch the payment and its deadline timer: the
// outcome must be one of the two, never an error. PostgreSQL only: PGlite has one connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openTestDatabase, pgServerUrl } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount, type Account } from '../harness/accounts.ts';
import { createPayment, getPayment } from '../harness/payments.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import type { Database } from '../../src/platform/db/index.ts';
import { untilLockWaiters } from '../harness/lock-waits.ts';

const skip = !pgServerUrl();
if (skip) console.log('coin choice against the deadline skipped: no PostgreSQL server');

describe.skipIf(skip)('a coin chosen as the hour to choose ends [postgres]', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Database;
  let t: TestApp;
  let acct: Account;
  const clock = new ManualClock(new Date('2026-03-10T10:00:00Z'));

  beforeAll(async () => {
    opened = await openTestDatabase('postgres');
    db = opened.db;
    t = await startTestApp(db, { clock });
    acct = await signupAccount(t.app);
  });
  afterAll(async () => {
    await t?.close();
    await opened?.dispose();
  });

  const blocked = (n: number) => untilLockWaiters(db, n);
  /** Another connection holds the payment while `queue` lines statements up behind it, then lets them go. */
  const holdingPayment = async (id: string, queue: () => Promise<void>) => {
    const locker = new pg.Client({ connectionString: opened.url! });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('select id from payments where id = $1 for update', [id]);
      await queue();
      await locker.query('commit');
    } finally {
      await locker.end();
    }
  };

  it('the choice queued first for the payment wins: pending with the coin and its new deadline, the old one doing nothing', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: undefined });
    const expiresAt = new Date(p.expires_at);
    clock.set(new Date(expiresAt.getTime() - 1000));
    // another connection holds the payment, so the choice (its checks passed within the hour) and
    // then the deadline's timer (claimed at the hour) queue for it, the choice ahead
    let choice;
    let ran;
    await holdingPayment(p.id, async () => {
      choice = t.app.inject({ method: 'POST', url: `/checkout/${p.checkout_token}/token`, remoteAddress: randomIp(), payload: { token: 'ETH' } });
      await blocked(1);
      ran = t.services.payments.runDue(new Date(expiresAt.getTime() + 1));
      // the timer queues for the payment too, or passes over the timer row the choice holds
      await Promise.race([blocked(2), ran]);
    });
    const [chosen, count] = await Promise.all([choice!, ran!]);
    expect(chosen.statusCode, chosen.body).toBe(200);
    expect(count).toBe(0);
    clock.set(new Date(expiresAt.getTime() + 2000));
    const got = await getPayment(t.app, acct.testKey, p.id);
    expect(got).toMatchObject({ status: 'pending', token: 'ETH' });
    expect(Date.parse(got.expires_at)).toBe(expiresAt.getTime() - 1000 + 15 * 60 * 1000);
    const { rows } = await db.pool!.query('select kind, run_at, attempts from timers where key = $1', [p.id]);
    expect(rows).toEqual([{ kind: 'payment.deadline', run_at: new Date(got.expires_at), attempts: 0 }]);
    // and the payment expires at its new deadline, not before
    await t.services.payments.runDue(new Date(Date.parse(got.expires_at) - 1));
    expect((await getPayment(t.app, acct.testKey, p.id)).status).toBe('pending');
    clock.set(new Date(Date.parse(got.expires_at) + 1100));
    await t.services.payments.runDue(new Date(got.expires_at));
    expect((await getPayment(t.app, acct.testKey, p.id)).status).toBe('expired');
  });

  it('the timer queued first for the payment wins: expired, the choice refused as no longer payable, no timer left', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: undefined });
    const expiresAt = new Date(p.expires_at);
    clock.set(new Date(expiresAt.getTime() - 1000));
    let choice;
    let ran;
    await holdingPayment(p.id, async () => {
      ran = t.services.payments.runDue(new Date(expiresAt.getTime() + 1));
      await blocked(1);
      choice = t.app.inject({ method: 'POST', url: `/checkout/${p.checkout_token}/token`, remoteAddress: randomIp(), payload: { token: 'ETH' } });
      await blocked(2);
    });
    const [chosen, count] = await Promise.all([choice!, ran!]);
    expect([chosen.statusCode, chosen.json()]).toEqual([400, { error: 'this payment can no longer be paid' }]);
    expect(count).toBe(1);
    clock.set(new Date(expiresAt.getTime() + 2000));
    expect(await getPayment(t.app, acct.testKey, p.id)).toMatchObject({ status: 'expired', token: '' });
    expect((await db.pool!.query('select kind from timers where key = $1', [p.id])).rows).toEqual([]);
  });
});
