// Every payment transition of spec 3 against the webhook events of spec 6.1: each step of a
// payment (a deposit seen, final or failed through the intake, the deadline, a coin chosen, a
// simulated outcome) stores exactly the webhook events listed, in order, once, each with `data`
// equal to the payment GET /v1/payments/{id} answers right after, less its checkout fields.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { and, asc, eq, gt } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { createPayment, getPayment, type Json } from '../harness/payments.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { events } from '../../src/events/index.ts';
import { parseUnits } from '../../src/money/index.ts';
import { WEBHOOK_PAYMENT_EVENTS } from '../../src/payments/index.ts';
import { buildEnvelope } from '../../src/webhooks/index.ts';

const STEP_MS = 1000;
const HOUR = 60 * 60 * 1000;

const P = {
  partially: 'payment.partially_paid', detecting: 'payment.detecting', confirmed: 'payment.confirmed',
  underpaid: 'payment.underpaid', expired: 'payment.expired', failed: 'payment.failed',
  wrong: 'payment.wrong_asset', late: 'payment.late_deposit',
} as const;

/** How much of the amount due a deposit brings. */
type Share = 'quarter' | 'half' | 'rest' | 'full' | 'almost' | 'twice';
type Step =
  /** A deposit seen: pending unless `final`; `coin` another coin than asked (TRX, `big` worth far more than the price). */
  | { seen: string; share: Share; final?: boolean; coin?: 'TRX'; big?: boolean; raises: string[] }
  /** A deposit seen at expires_at, before the deadline's timer ran (the payment closes first, in the same step). */
  | { seenAtDeadline: string; share: Share; raises: string[]; closedAs: string }
  /** Confirmations counted by a watcher (final at 3); `orphan`: out of its block again. */
  | { confirm: string; confirmations: number; raises: string[] }
  | { orphan: string; raises: string[] }
  /** A failed deposit found in a block after all. */
  | { revive: string; confirmations: number; raises: string[] }
  /** A failed deposit found in a block at expires_at, before the deadline's timer ran (the payment closes first); the deposit then shows late. */
  | { reviveAtDeadline: string; confirmations: number; raises: string[]; closedAs: string }
  | { final: string; raises: string[] }
  | { fail: string; raises: string[] }
  /** The clock moved to expires_at and the due timers run. */
  | { deadline: true; raises: string[] }
  /** The clock moved on (within or past the 24 hours of late deposits). */
  | { wait: number; raises: [] }
  | { choose: 'USDT_TRC20'; raises: string[] }
  /** A simulated outcome played to its end, one step at a time. */
  | { simulate: string; raises: string[] };

interface Case { name: string; noCoin?: boolean; otherAssets?: boolean; steps: Step[] }

const CASES: Case[] = [
  { name: 'created with a coin: nothing', steps: [] },
  { name: 'coin chosen: nothing', noCoin: true, steps: [{ choose: 'USDT_TRC20', raises: [] }] },
  { name: 'no coin chosen by the deadline: expired', noCoin: true, steps: [{ deadline: true, raises: [P.expired] }] },
  { name: 'nothing by the deadline: expired', steps: [{ deadline: true, raises: [P.expired] }] },
  { name: 'part, more still short, then the rest: partially_paid twice, detecting, confirmed', steps: [
    { seen: 'a', share: 'quarter', raises: [P.partially] },
    { seen: 'b', share: 'quarter', raises: [P.partially] },
    { seen: 'c', share: 'half', raises: [P.detecting] },
    { final: 'a', raises: [] },
    { final: 'b', raises: [] },
    { final: 'c', raises: [P.confirmed] },
  ] },
  { name: 'confirmations counted, out of their block and back, then final: detecting, confirmed', steps: [
    { seen: 'a', share: 'full', raises: [P.detecting] }, { confirm: 'a', confirmations: 1, raises: [] }, { orphan: 'a', raises: [] },
    { confirm: 'a', confirmations: 2, raises: [] }, { confirm: 'a', confirmations: 3, raises: [P.confirmed] },
  ] },
  { name: 'a failed deposit found in a block after all: failed, then detecting by a late deposit', steps: [
    { seen: 'a', share: 'full', raises: [P.detecting] }, { fail: 'a', raises: [P.failed] },
    { revive: 'a', confirmations: 1, raises: [P.detecting, P.late] }, { confirm: 'a', confirmations: 3, raises: [P.confirmed] },
  ] },
  // Found in a block once the deadline passed: a late deposit, whether or not the deadline's timer ran first.
  { name: 'a failed deposit found in a block at the deadline before its timer: underpaid, detecting, late_deposit', steps: [
    { seen: 'a', share: 'half', raises: [P.partially] }, { seen: 'b', share: 'rest', raises: [P.detecting] }, { fail: 'b', raises: [P.partially] },
    { reviveAtDeadline: 'b', confirmations: 1, closedAs: 'underpaid', raises: [P.underpaid, P.detecting, P.late] }, { deadline: true, raises: [] },
    { final: 'a', raises: [] }, { confirm: 'b', confirmations: 3, raises: [P.confirmed] },
  ] },
  { name: 'a failed deposit found in a block after the deadline\'s timer: underpaid, then detecting, late_deposit', steps: [
    { seen: 'a', share: 'half', raises: [P.partially] }, { seen: 'b', share: 'rest', raises: [P.detecting] }, { fail: 'b', raises: [P.partially] },
    { deadline: true, raises: [P.underpaid] }, { reviveAtDeadline: 'b', confirmations: 1, closedAs: 'underpaid', raises: [P.detecting, P.late] },
    { final: 'a', raises: [] }, { confirm: 'b', confirmations: 3, raises: [P.confirmed] },
  ] },
  { name: 'part seen at the deadline before its timer: expired, late_deposit, underpaid', steps: [
    { seenAtDeadline: 'a', share: 'half', closedAs: 'expired', raises: [P.expired, P.late, P.underpaid] }, { deadline: true, raises: [] },
  ] },
  { name: 'the rest seen at the deadline before its timer: underpaid, detecting, late_deposit', steps: [
    { seen: 'a', share: 'half', raises: [P.partially] },
    { seenAtDeadline: 'b', share: 'rest', closedAs: 'underpaid', raises: [P.underpaid, P.detecting, P.late] },
  ] },
  { name: 'full amount pending, then final', steps: [{ seen: 'a', share: 'full', raises: [P.detecting] }, { final: 'a', raises: [P.confirmed] }] },
  { name: 'full amount already final: detecting then confirmed at once', steps: [{ seen: 'a', share: 'full', final: true, raises: [P.detecting, P.confirmed] }] },
  { name: 'short within the tolerance: detecting', steps: [{ seen: 'a', share: 'almost', raises: [P.detecting] }, { final: 'a', raises: [P.confirmed] }] },
  { name: 'overpaid: detecting, confirmed', steps: [{ seen: 'a', share: 'twice', raises: [P.detecting] }, { final: 'a', raises: [P.confirmed] }] },
  { name: 'part by the deadline: underpaid', steps: [{ seen: 'a', share: 'half', raises: [P.partially] }, { deadline: true, raises: [P.underpaid] }] },
  { name: 'detecting by the deadline: nothing, then confirmed', steps: [
    { seen: 'a', share: 'full', raises: [P.detecting] }, { deadline: true, raises: [] }, { final: 'a', raises: [P.confirmed] },
  ] },
  { name: 'the only deposit fails while detecting: failed', steps: [{ seen: 'a', share: 'full', raises: [P.detecting] }, { fail: 'a', raises: [P.failed] }] },
  { name: 'the only deposit of a partially paid payment fails: failed', steps: [{ seen: 'a', share: 'half', raises: [P.partially] }, { fail: 'a', raises: [P.failed] }] },
  { name: 'one of two deposits fails before the deadline: partially_paid again', steps: [
    { seen: 'a', share: 'half', raises: [P.partially] }, { seen: 'b', share: 'rest', raises: [P.detecting] }, { fail: 'b', raises: [P.partially] },
  ] },
  { name: 'one of two deposits fails after the deadline: underpaid', steps: [
    { seen: 'a', share: 'half', raises: [P.partially] }, { seen: 'b', share: 'rest', raises: [P.detecting] },
    { deadline: true, raises: [] }, { fail: 'b', raises: [P.underpaid] },
  ] },
  { name: 'the deposit of an underpaid payment fails: failed', steps: [
    { seen: 'a', share: 'half', raises: [P.partially] }, { deadline: true, raises: [P.underpaid] }, { fail: 'a', raises: [P.failed] },
  ] },
  { name: 'late deposit completing an expired payment: detecting with late_deposit, then confirmed', steps: [
    { deadline: true, raises: [P.expired] }, { wait: HOUR, raises: [] },
    { seen: 'a', share: 'full', raises: [P.detecting, P.late] }, { final: 'a', raises: [P.confirmed] },
  ] },
  { name: 'late deposit already final: detecting, late_deposit, confirmed at once', steps: [
    { deadline: true, raises: [P.expired] }, { seen: 'a', share: 'full', final: true, raises: [P.detecting, P.late, P.confirmed] },
  ] },
  { name: 'late deposit still short on an expired payment: late_deposit, underpaid', steps: [
    { deadline: true, raises: [P.expired] }, { seen: 'a', share: 'half', raises: [P.late, P.underpaid] },
  ] },
  { name: 'late deposits on an underpaid payment: short again, then completing', steps: [
    { seen: 'a', share: 'half', raises: [P.partially] }, { deadline: true, raises: [P.underpaid] },
    { seen: 'b', share: 'quarter', raises: [P.late, P.underpaid] },
    { seen: 'c', share: 'quarter', raises: [P.detecting, P.late] },
  ] },
  { name: 'late deposit completing a failed payment', steps: [
    { seen: 'a', share: 'full', raises: [P.detecting] }, { fail: 'a', raises: [P.failed] }, { deadline: true, raises: [] },
    { seen: 'b', share: 'full', raises: [P.detecting, P.late] },
  ] },
  { name: 'late deposit that fails after completing: failed', steps: [
    { deadline: true, raises: [P.expired] }, { seen: 'a', share: 'full', raises: [P.detecting, P.late] }, { fail: 'a', raises: [P.failed] },
  ] },
  { name: 'deposit after confirmation: late_deposit alone', steps: [
    { seen: 'a', share: 'full', final: true, raises: [P.detecting, P.confirmed] }, { seen: 'b', share: 'half', raises: [P.late] },
  ] },
  { name: 'deposit more than 24 hours after expires_at: no event', steps: [
    { deadline: true, raises: [P.expired] }, { wait: 24 * HOUR + 1000, raises: [] }, { seen: 'a', share: 'full', raises: [] },
  ] },
  { name: 'the same transaction seen twice: its events once', steps: [{ seen: 'a', share: 'half', raises: [P.partially] }, { seen: 'a', share: 'half', raises: [] }] },
  { name: 'another coin not accepted: wrong_asset alone', steps: [{ seen: 'a', share: 'full', coin: 'TRX', raises: [P.wrong] }] },
  // It never counted, so its failing changes nothing: the payment still waits for its coin.
  { name: 'another coin not accepted, then dropped: nothing, and the payment is still paid on time', steps: [
    { seen: 'a', share: 'full', coin: 'TRX', raises: [P.wrong] }, { fail: 'a', raises: [] },
    { seen: 'b', share: 'full', raises: [P.detecting] }, { final: 'b', raises: [P.confirmed] },
  ] },
  // Not counted, so the received figures stay as they were: no status event is raised again.
  { name: 'another coin not accepted on a partially paid payment: wrong_asset alone', steps: [
    { seen: 'a', share: 'half', raises: [P.partially] }, { seen: 'b', share: 'full', coin: 'TRX', raises: [P.wrong] },
  ] },
  { name: 'another coin not accepted after an underpaid close: late_deposit, wrong_asset', steps: [
    { seen: 'a', share: 'half', raises: [P.partially] }, { deadline: true, raises: [P.underpaid] },
    { seen: 'b', share: 'full', coin: 'TRX', raises: [P.late, P.wrong] },
  ] },
  { name: 'another coin accepted covering the price: detecting, wrong_asset', otherAssets: true, steps: [
    { seen: 'a', share: 'full', coin: 'TRX', big: true, raises: [P.detecting, P.wrong] }, { final: 'a', raises: [P.confirmed] },
  ] },
  { name: 'another coin after the payment closed: late_deposit, wrong_asset', steps: [
    { deadline: true, raises: [P.expired] }, { seen: 'a', share: 'full', coin: 'TRX', raises: [P.late, P.wrong] },
  ] },
  ...([
    ['confirmed', [P.detecting, P.confirmed]],
    ['overpaid', [P.detecting, P.confirmed]],
    ['partially_paid', [P.partially]],
    ['underpaid', [P.partially, P.underpaid]],
    ['expired', [P.expired]],
    ['failed', [P.detecting, P.failed]],
    ['wrong_asset', [P.wrong]],
    ['paid_late', [P.expired, P.detecting, P.late, P.confirmed]],
  ] as const).map(([outcome, raises]): Case => ({ name: `simulated ${outcome}`, steps: [{ simulate: outcome, raises: [...raises] }] })),
  { name: 'simulated expired without a coin', noCoin: true, steps: [{ simulate: 'expired', raises: [P.expired] }] },
];

/** The payment as a webhook carries it (spec 2 Event envelope: never checkout_token, checkout_url, token_options). */
const withoutCheckout = ({ checkout_token: _t, checkout_url: _u, token_options: _o, ...rest }: Json): Json => rest;
/** The fields a payment paid and final at once shows only once confirmed. */
const withoutDetecting = ({ status: _s, confirmed_at: _c, confirmations: _n, confirmations_required: _r, ...rest }: Json): Json => rest;

describeEachDb('payment webhook events per transition', (h) => {
  let t: TestApp;
  let plain: Account;
  let other: Account;
  const clock = new ManualClock(new Date('2026-03-10T10:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock, env: { SIMULATION_STEP_MS: String(STEP_MS) } });
    plain = await signupAccount(t.app);
    other = await signupAccount(t.app);
    const res = await t.app.inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(other.accessToken), payload: { accept_other_assets: true } });
    expect(res.statusCode).toBe(200);
  });
  afterAll(async () => { await t.close(); });
  beforeEach(() => { clock.advance(1100); });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const acct = c.otherAssets ? other : plain;
    const created = await createPayment(t.app, acct.testKey, { token: c.noCoin ? undefined : 'USDT_TRC20', amount_usd: '100' });
    const id = created.id as string;
    let payment = created;
    let lastSeq = 0;
    const due = () => parseUnits(payment.crypto_amount, 6)!;
    const amounts: Record<Share, () => bigint> = {
      quarter: () => due() / 4n, half: () => due() / 2n, rest: () => due() - due() / 2n, full: due,
      almost: () => due() - due() / 1000n, twice: () => due() * 2n,
    };
    const intake = t.services.payments.intake;
    const ref = { paymentId: id };

    /** The webhook events stored since the last look, each checked against the payment read now. */
    const raised = async (closedAs?: string): Promise<string[]> => {
      const rows = await h.db().orm.select().from(events).where(and(eq(events.paymentId, id), gt(events.seq, lastSeq))).orderBy(asc(events.seq));
      if (rows.length) lastSeq = rows[rows.length - 1].seq;
      clock.advance(1100); // past the read cache
      payment = await getPayment(t.app, acct.testKey, id);
      const now = withoutCheckout(payment);
      const hooks = rows.filter((e) => WEBHOOK_PAYMENT_EVENTS.includes(e.type));
      const types = hooks.map((e) => e.type);
      for (const [i, stored] of hooks.entries()) {
        // what the webhook receives: the stored data keeps checkout_token for the dashboard's socket
        const e = { type: stored.type, data: buildEnvelope({ ...stored, createdAt: stored.createdAt }).data };
        expect(stored.livemode).toBe(false);
        expect(stored.data, stored.type).toMatchObject({ checkout_token: payment.checkout_token });
        // A payment paid and final in one step passes through detecting: the events before
        // payment.confirmed describe it as it was then (spec 6.1: data.status is the truth).
        if (closedAs && i === 0) {
          // The deadline closed it in the same step, before the deposit: that event shows it closed.
          expect(e.data, e.type).toMatchObject({ status: closedAs });
        } else if (now.status === 'confirmed' && types.indexOf(P.confirmed) > i) {
          expect(e.data, e.type).toMatchObject({ status: 'detecting' });
          expect(withoutDetecting(e.data as Json), e.type).toEqual(withoutDetecting(now));
        } else {
          expect(e.data, e.type).toEqual(now);
        }
      }
      return types;
    };

    expect(await raised()).toEqual([]);
    for (const step of c.steps) {
      const at = clock.now();
      if ('seen' in step) {
        const coin = step.coin ?? 'USDT_TRC20';
        const amount = step.coin ? (step.big ? 10_000_000_000n : 1_000_000n) : amounts[step.share]();
        await intake.recordDeposit(ref, { txId: `${step.seen}-${id}`, token: coin, amount, confirmations: step.final ? 3 : 0, confirmationsRequired: 3, at });
      } else if ('seenAtDeadline' in step) {
        clock.set(new Date(Math.max(at.getTime(), Date.parse(payment.expires_at))));
        await intake.recordDeposit(ref, { txId: `${step.seenAtDeadline}-${id}`, token: 'USDT_TRC20', amount: amounts[step.share](), confirmations: 0, confirmationsRequired: 3, at: clock.now() });
        expect(await raised(step.closedAs), JSON.stringify(step)).toEqual(step.raises);
        continue;
      } else if ('reviveAtDeadline' in step) {
        clock.set(new Date(Math.max(at.getTime(), Date.parse(payment.expires_at))));
        const closedHere = payment.status !== step.closedAs;
        await intake.revive(ref, `${step.reviveAtDeadline}-${id}`, { block: 100, confirmations: step.confirmations }, clock.now());
        expect(await raised(closedHere ? step.closedAs : undefined), JSON.stringify(step)).toEqual(step.raises);
        const revived = (payment.deposits as Json[]).find((d) => d.tx_id === `${step.reviveAtDeadline}-${id}`);
        expect(revived, 'the revived deposit').toMatchObject({ status: 'pending', counted: true, late: true });
        continue;
      } else if ('confirm' in step) {
        await intake.setInclusion(ref, `${step.confirm}-${id}`, { block: 100, confirmations: step.confirmations }, at);
      } else if ('orphan' in step) {
        await intake.setInclusion(ref, `${step.orphan}-${id}`, { block: null, confirmations: 0 }, at);
      } else if ('revive' in step) {
        await intake.revive(ref, `${step.revive}-${id}`, { block: 100, confirmations: step.confirmations }, at);
      } else if ('final' in step) {
        await intake.markFinal(ref, `${step.final}-${id}`, at);
      } else if ('fail' in step) {
        await intake.markFailed(ref, `${step.fail}-${id}`, at);
      } else if ('deadline' in step) {
        clock.set(new Date(Math.max(at.getTime(), Date.parse(payment.expires_at))));
        await t.services.payments.runDue();
      } else if ('wait' in step) {
        clock.advance(step.wait);
      } else if ('choose' in step) {
        const res = await t.app.inject({ method: 'POST', url: `/v1/payments/${id}/token`, headers: keyHeader(acct.testKey), payload: { token: step.choose } });
        expect(res.statusCode).toBe(200);
      } else {
        const res = await t.app.inject({ method: 'POST', url: `/v1/payments/${id}/simulate`, headers: keyHeader(acct.testKey), payload: { outcome: step.simulate } });
        expect(res.statusCode).toBe(200);
        const seen: string[] = [...await raised()];
        for (let i = 0; i < 10 && payment.simulation?.state !== 'done'; i++) {
          clock.advance(STEP_MS);
          await t.services.payments.runDue();
          seen.push(...await raised());
        }
        expect(payment.simulation?.state).toBe('done');
        expect(seen, step.simulate).toEqual(step.raises);
        continue;
      }
      expect(await raised(), JSON.stringify(step)).toEqual(step.raises);
    }
  });
});
