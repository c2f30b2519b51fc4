import { describe, expect, it } from 'vitest';
import {
  canChooseCoin, canSimulate, countdownRuns, isClosed, isOpen, isPaymentStatus, nextStatus, PAYMENT_STATUSES, reportsConfirmations,
  TRANSITIONS, type Coverage, type PaymentFacts, type PaymentStatus, type StatusTrigger,
} from './status.ts';

const facts = (status: PaymentStatus, coverage: Coverage = 'none', finalCoverage: Coverage = 'none', more: Partial<PaymentFacts> = {}): PaymentFacts =>
  ({ status, hasCoin: true, coverage, finalCoverage, deadlinePassed: false, ...more });

type Row = [string, PaymentFacts, StatusTrigger, PaymentStatus | null, string[]];
const D = 'payment.detecting', C = 'payment.confirmed', P = 'payment.partially_paid', U = 'payment.underpaid';
const X = 'payment.expired', F = 'payment.failed', L = 'payment.late_deposit';

const TABLE: Row[] = [
  ['coin chosen', facts('pending', 'none', 'none', { hasCoin: false }), 'coin_chosen', 'pending', []],
  ['second coin choice', facts('pending'), 'coin_chosen', null, []],
  ['coin chosen on a closed payment', facts('expired', 'none', 'none', { hasCoin: false }), 'coin_chosen', null, []],

  ['pending, part arrives', facts('pending', 'partial'), 'deposit', 'partially_paid', [P]],
  ['partially paid, more but still short', facts('partially_paid', 'partial'), 'deposit', 'partially_paid', [P]],
  ['pending, full amount arrives', facts('pending', 'paid'), 'deposit', 'detecting', [D]],
  ['partially paid, rest arrives', facts('partially_paid', 'paid', 'partial'), 'deposit', 'detecting', [D]],
  ['pending, full amount arrives final', facts('pending', 'paid', 'paid'), 'deposit', 'confirmed', [D, C]],
  ['pending, uncounted deposit', facts('pending', 'none'), 'deposit', null, []],
  ['partially paid, uncounted deposit', facts('partially_paid', 'partial', 'none', { depositCounted: false }), 'deposit', null, []],
  ['detecting, another deposit', facts('detecting', 'paid'), 'deposit', null, []],

  ['detecting, confirmations reached', facts('detecting', 'paid', 'paid'), 'deposit_final', 'confirmed', [C]],
  ['detecting, one of two deposits final', facts('detecting', 'paid', 'partial'), 'deposit_final', null, []],
  ['partially paid, part final', facts('partially_paid', 'partial', 'partial'), 'deposit_final', null, []],
  ['underpaid, part final', facts('underpaid', 'partial', 'partial', { deadlinePassed: true }), 'deposit_final', null, []],

  ['detecting, the only deposit dropped', facts('detecting', 'none'), 'deposit_failed', 'failed', [F]],
  ['partially paid, the deposit dropped', facts('partially_paid', 'none'), 'deposit_failed', 'failed', [F]],
  ['underpaid, the deposit dropped', facts('underpaid', 'none', 'none', { deadlinePassed: true }), 'deposit_failed', 'failed', [F]],
  ['detecting, short again before the deadline', facts('detecting', 'partial'), 'deposit_failed', 'partially_paid', [P]],
  ['detecting, short again after the deadline', facts('detecting', 'partial', 'partial', { deadlinePassed: true }), 'deposit_failed', 'underpaid', [U]],
  ['detecting, an extra deposit dropped, rest final', facts('detecting', 'paid', 'paid'), 'deposit_failed', 'confirmed', [C]],
  ['confirmed, a deposit dropped', facts('confirmed', 'none'), 'deposit_failed', null, []],
  ['pending, a deposit that never counted dropped', facts('pending', 'none'), 'deposit_failed', null, []],

  ['deadline, nothing arrived', facts('pending', 'none', 'none', { deadlinePassed: true }), 'deadline', 'expired', [X]],
  ['deadline, no coin chosen', facts('pending', 'none', 'none', { deadlinePassed: true, hasCoin: false }), 'deadline', 'expired', [X]],
  ['deadline, part arrived', facts('partially_paid', 'partial', 'none', { deadlinePassed: true }), 'deadline', 'underpaid', [U]],
  ['deadline while detecting', facts('detecting', 'paid', 'none', { deadlinePassed: true }), 'deadline', null, []],
  ['deadline on a closed payment', facts('expired', 'none', 'none', { deadlinePassed: true }), 'deadline', null, []],

  ['late deposit completes an expired payment', facts('expired', 'paid', 'none', { deadlinePassed: true }), 'late_deposit', 'detecting', [D, L]],
  ['late deposit completes an underpaid payment', facts('underpaid', 'paid', 'partial', { deadlinePassed: true }), 'late_deposit', 'detecting', [D, L]],
  ['late deposit completes a failed payment', facts('failed', 'paid', 'none', { deadlinePassed: true }), 'late_deposit', 'detecting', [D, L]],
  ['late deposit completes, already final', facts('expired', 'paid', 'paid', { deadlinePassed: true }), 'late_deposit', 'confirmed', [D, L, C]],
  ['late deposit still short (expired)', facts('expired', 'partial', 'none', { deadlinePassed: true }), 'late_deposit', 'underpaid', [L, U]],
  ['late deposit still short (underpaid)', facts('underpaid', 'partial', 'none', { deadlinePassed: true }), 'late_deposit', 'underpaid', [L, U]],
  ['late deposit that does not count', facts('expired', 'none', 'none', { deadlinePassed: true }), 'late_deposit', 'expired', [L]],
  ['late deposit that does not count on an underpaid payment', facts('underpaid', 'partial', 'partial', { deadlinePassed: true, depositCounted: false }), 'late_deposit', 'underpaid', [L]],
  ['late deposit after confirmation', facts('confirmed', 'paid', 'paid', { deadlinePassed: true }), 'late_deposit', 'confirmed', [L]],
];

describe('payment transitions', () => {
  it.each(TABLE)('%s', (_name, f, trigger, status, events) => {
    const next = nextStatus(f, trigger);
    if (status === null) {
      expect(next).toBeNull();
    } else {
      expect(next?.status).toBe(status);
      expect(next?.events).toEqual(events);
    }
  });

  it('the table above exercises every transition row', () => {
    const hit = new Set(TABLE.map(([, f, t]) => nextStatus(f, t)?.rule).filter(Boolean));
    expect([...hit].sort()).toEqual(TRANSITIONS.map((t) => t.rule).sort());
  });

  it('a closed payment moves only by a late deposit or a dropped deposit', () => {
    const triggers: StatusTrigger[] = ['coin_chosen', 'deposit', 'deposit_final', 'deadline'];
    for (const status of PAYMENT_STATUSES.filter(isClosed)) {
      for (const trigger of triggers) {
        for (const coverage of ['none', 'partial', 'paid'] as const) {
          expect(nextStatus(facts(status, coverage, coverage, { deadlinePassed: true }), trigger), `${status} ${trigger} ${coverage}`).toBeNull();
        }
      }
    }
  });

  it('confirmed is never left', () => {
    const triggers: StatusTrigger[] = ['coin_chosen', 'deposit', 'deposit_final', 'deposit_failed', 'deadline', 'late_deposit'];
    for (const trigger of triggers) {
      for (const coverage of ['none', 'partial', 'paid'] as const) {
        const next = nextStatus(facts('confirmed', coverage, coverage, { deadlinePassed: true }), trigger);
        expect(next === null || next.status === 'confirmed').toBe(true);
      }
    }
  });
});

describe('status predicates', () => {
  it('tells open from closed', () => {
    expect(PAYMENT_STATUSES.filter(isOpen)).toEqual(['pending', 'partially_paid', 'detecting']);
    expect(PAYMENT_STATUSES.filter(isClosed)).toEqual(['confirmed', 'underpaid', 'expired', 'failed']);
  });

  it('allows simulation only on pending or partially paid payments', () => {
    expect(PAYMENT_STATUSES.filter(canSimulate)).toEqual(['pending', 'partially_paid']);
  });

  it('allows one coin choice, while pending', () => {
    expect(canChooseCoin('pending', false)).toBe(true);
    expect(canChooseCoin('pending', true)).toBe(false);
    expect(canChooseCoin('expired', false)).toBe(false);
  });

  it('stops the countdown once the amount arrived and reports confirmations while detecting', () => {
    expect(PAYMENT_STATUSES.filter(countdownRuns)).toEqual(['pending', 'partially_paid']);
    expect(PAYMENT_STATUSES.filter(reportsConfirmations)).toEqual(['detecting']);
  });

  it('recognises status names', () => {
    expect(isPaymentStatus('underpaid')).toBe(true);
    expect(isPaymentStatus('paid')).toBe(false);
  });
});
