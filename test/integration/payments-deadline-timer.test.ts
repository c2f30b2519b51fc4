// The deadline's timer stays armed while a payment's countdown runs: one that runs before the
// payment's expires_at (a failed attempt's retry once pulled a moved timer forward; anything else
// that runs it early) sets itself again at expires_at, so the payment still expires there.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { createPayment, getPayment } from '../harness/payments.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { queryRows } from '../../src/platform/db/index.ts';
import { DEADLINE_TIMER } from '../../src/payments/deadlines.ts';

describeEachDb('payment deadline timer', (h) => {
  let t: TestApp;
  let acct: Account;
  const clock = new ManualClock(new Date('2026-03-11T10:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock });
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t?.close(); });

  const timerOf = async (id: string) =>
    (await queryRows<{ run_at: string }>(h.db().orm, sql`select run_at from timers where kind = ${DEADLINE_TIMER} and key = ${id}`)).map((r) => new Date(r.run_at).toISOString());

  it.each([['without a coin (the hour to choose)', undefined], ['with its coin (the 15 minutes to pay)', 'ETH']] as const)(
    'a deadline run early, %s, sets itself again at expires_at, and the payment expires there', async (_label, token) => {
      const p = await createPayment(t.app, acct.testKey, { token });
      expect(await timerOf(p.id)).toEqual([p.expires_at]);
      // the timer pulled forward, as a retry of a failed attempt did to a moved one
      const early = new Date(clock.now().getTime() + 5_000);
      await h.db().orm.execute(sql`update timers set run_at = ${early.toISOString()} where kind = ${DEADLINE_TIMER} and key = ${p.id}`);
      expect(await t.services.payments.runDue(early)).toBeGreaterThanOrEqual(1);
      expect((await getPayment(t.app, acct.testKey, p.id)).status).toBe('pending');
      expect(await timerOf(p.id)).toEqual([p.expires_at]);
      await t.services.payments.runDue(new Date(p.expires_at));
      expect((await getPayment(t.app, acct.testKey, p.id)).status).toBe('expired');
      expect(await timerOf(p.id)).toEqual([]);
    });
});
