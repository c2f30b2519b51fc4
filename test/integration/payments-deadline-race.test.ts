// A deposit seen at or after expires_at while the deadline timer has not run yet (timers poll, a
// watcher catching up may run before them): spec 3 moves a payment to partially_paid or detecting
// only before its deadline; past it the deadline closes the payment and the money is a late
// deposit. The outcome and events must not depend on which of the two ran first.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { createPayment, getPayment } from '../harness/payments.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { events } from '../../src/events/index.ts';
import { parseUnits } from '../../src/money/index.ts';
import { WEBHOOK_PAYMENT_EVENTS } from '../../src/payments/index.ts';

describeEachDb('payment deadline against a deposit', (h) => {
  let t: TestApp;
  let acct: Account;
  const clock = new ManualClock(new Date('2026-03-10T10:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock });
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });
  beforeEach(() => { clock.advance(1100); });

  const webhookTypes = async (id: string): Promise<string[]> =>
    (await h.db().orm.select().from(events).where(eq(events.paymentId, id)).orderBy(asc(events.seq)))
      .map((e) => e.type).filter((x) => WEBHOOK_PAYMENT_EVENTS.includes(x));

  /** A payment whose deadline has just passed, its timer not run; `first` of its amount seen before. */
  const pastDeadline = async (first: bigint | null) => {
    const p = await createPayment(t.app, acct.testKey, { token: 'USDT_TRC20', amount_usd: '100' });
    const due = parseUnits(p.crypto_amount, 6)!;
    if (first !== null) {
      await t.services.payments.intake.recordDeposit({ paymentId: p.id }, { txId: `early-${p.id}`, token: 'USDT_TRC20', amount: first === 0n ? due / 2n : first, confirmations: 0, at: clock.now() });
    }
    clock.advance(15 * 60 * 1000);
    return { id: p.id, due };
  };
  const see = (id: string, txId: string, amount: bigint) =>
    t.services.payments.intake.recordDeposit({ paymentId: id }, { txId, token: 'USDT_TRC20', amount, confirmations: 0, at: clock.now() });
  /** Runs the due deadline, then reads the payment (a second later, past the read cache). */
  const settle = async (id: string) => {
    await t.services.payments.runDue();
    clock.advance(1100);
    return getPayment(t.app, acct.testKey, id);
  };

  it('part of the amount seen at the deadline: expired, then a late deposit still short (underpaid), as if the timer ran first', async () => {
    const { id, due } = await pastDeadline(null);
    await see(id, 'part-at-deadline', due / 2n);
    const got = await settle(id);
    expect(got.status).toBe('underpaid');
    expect(got.deposits).toMatchObject([{ late: true, counted: true }]);
    expect(await webhookTypes(id)).toEqual(['payment.expired', 'payment.late_deposit', 'payment.underpaid']);
  });

  it('the full amount seen at the deadline: expired, then detecting by a late deposit', async () => {
    const { id, due } = await pastDeadline(null);
    await see(id, 'full-at-deadline', due);
    const got = await settle(id);
    expect(got.status).toBe('detecting');
    expect(got.deposits).toMatchObject([{ late: true, counted: true }]);
    expect(await webhookTypes(id)).toEqual(['payment.expired', 'payment.detecting', 'payment.late_deposit']);
  });

  it('the rest of a partially paid payment seen at the deadline: underpaid, then detecting by a late deposit', async () => {
    const { id, due } = await pastDeadline(0n);
    await see(id, 'rest-at-deadline', due - due / 2n);
    const got = await settle(id);
    expect(got.status).toBe('detecting');
    expect(got.deposits.map((d: { late?: boolean }) => d.late ?? false)).toEqual([false, true]);
    expect(await webhookTypes(id)).toEqual(['payment.partially_paid', 'payment.underpaid', 'payment.detecting', 'payment.late_deposit']);
  });

  it('a deposit seen a moment before the deadline is no late deposit; the timer then finds it detecting', async () => {
    const p = await createPayment(t.app, acct.testKey, { token: 'USDT_TRC20', amount_usd: '100' });
    clock.advance(15 * 60 * 1000 - 1);
    await see(p.id, 'just-in-time', parseUnits(p.crypto_amount, 6)!);
    clock.advance(1);
    const got = await settle(p.id);
    expect(got.status).toBe('detecting');
    expect(got.deposits).toMatchObject([{ counted: true }]);
    expect(got.deposits[0].late).toBeUndefined();
    expect(await webhookTypes(p.id)).toEqual(['payment.detecting']);
  });
});
