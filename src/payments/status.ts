// The payment state machine of spec part 3, as data: each row says which trigger moves which
// statuses, under which facts, to what, raising which webhook events (spec 6.1). Pure: the facts
// are computed by deposit-accounting.ts, the caller persists the result with a compare-and-set.
import { PAYMENT_EVENTS, type PaymentEventType } from '../events/webhook-types.ts';

export const PAYMENT_STATUSES = ['pending', 'partially_paid', 'detecting', 'confirmed', 'underpaid', 'expired', 'failed'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const OPEN_STATUSES: readonly PaymentStatus[] = ['pending', 'partially_paid', 'detecting'];
const SIMULATABLE: readonly PaymentStatus[] = ['pending', 'partially_paid'];
/** Closed statuses a deposit can still change: money may still arrive within the late window. */
const REOPENABLE: readonly PaymentStatus[] = ['expired', 'underpaid', 'failed'];

export const isPaymentStatus = (v: unknown): v is PaymentStatus => (PAYMENT_STATUSES as readonly unknown[]).includes(v);
export const isOpen = (s: PaymentStatus): boolean => OPEN_STATUSES.includes(s);
export const isClosed = (s: PaymentStatus): boolean => !isOpen(s);
/** Simulation may start only on pending or partially paid payments (spec part 3). */
export const canSimulate = (s: PaymentStatus): boolean => SIMULATABLE.includes(s);
/** A coin can be chosen once, while the payment is pending without one (the hour is checked by the caller). */
export const canChooseCoin = (s: PaymentStatus, hasCoin: boolean): boolean => s === 'pending' && !hasCoin;
/** The deadline counts down only before the full amount arrived. */
export const countdownRuns = (s: PaymentStatus): boolean => s === 'pending' || s === 'partially_paid';
/** `confirmations` and `confirmations_required` are reported while detecting. */
export const reportsConfirmations = (s: PaymentStatus): boolean => s === 'detecting';

export { PAYMENT_EVENTS, type PaymentEventType } from '../events/webhook-types.ts';
const E = PAYMENT_EVENTS;

/** How much of amount_due_usd the counted deposits cover, judged with the underpaid tolerance. */
export type Coverage = 'none' | 'partial' | 'paid';

export interface PaymentFacts {
  status: PaymentStatus;
  hasCoin: boolean;
  /** Counted deposits not failed (pending or final). */
  coverage: Coverage;
  /** Counted deposits that are final. */
  finalCoverage: Coverage;
  /** expires_at has passed. */
  deadlinePassed: boolean;
  /** Whether the deposit just seen counts toward the payment (another coin or one not enabled may not); absent for other triggers. */
  depositCounted?: boolean;
}

/**
 * What happened: a coin was chosen; a deposit was seen (or collected confirmations) on an open
 * payment; a deposit became final; a deposit failed (dropped, reorganised away); the deadline
 * passed; a deposit arrived after the payment closed (within 24 hours of expires_at).
 */
export type StatusTrigger = 'coin_chosen' | 'deposit' | 'deposit_final' | 'deposit_failed' | 'deadline' | 'late_deposit';

export interface Transition {
  rule: string;
  on: readonly StatusTrigger[];
  from: readonly PaymentStatus[];
  when: (f: PaymentFacts) => boolean;
  /** `unchanged`: the status stays, the events are still raised. */
  to: PaymentStatus | 'unchanged';
  events: readonly PaymentEventType[];
}

const paid = (f: PaymentFacts) => f.coverage === 'paid';
const paidFinal = (f: PaymentFacts) => f.coverage === 'paid' && f.finalCoverage === 'paid';
const partial = (f: PaymentFacts) => f.coverage === 'partial';
const nothing = (f: PaymentFacts) => f.coverage === 'none';
/** Still short after a deposit that counted: one that does not count leaves the received figures as they were. */
const shortAgain = (f: PaymentFacts) => partial(f) && f.depositCounted !== false;
const DEPOSIT: readonly StatusTrigger[] = ['deposit', 'deposit_final'];
const WAITING: readonly PaymentStatus[] = ['pending', 'partially_paid'];

/** First matching row wins; no row means the status stays and nothing is raised. */
export const TRANSITIONS: readonly Transition[] = [
  { rule: 'coin chosen', on: ['coin_chosen'], from: ['pending'], when: (f) => !f.hasCoin, to: 'pending', events: [] },

  // Already final when it completes the payment (a chain with one confirmation, a simulation):
  // the payment still passes through detecting, so both events are raised in order.
  { rule: 'paid and final at once', on: DEPOSIT, from: WAITING, when: paidFinal, to: 'confirmed', events: [E.detecting, E.confirmed] },
  { rule: 'full amount arrived', on: DEPOSIT, from: WAITING, when: paid, to: 'detecting', events: [E.detecting] },
  // Every counted deposit that leaves it short raises the event again: received figures changed.
  { rule: 'part arrived', on: ['deposit'], from: WAITING, when: shortAgain, to: 'partially_paid', events: [E.partiallyPaid] },
  { rule: 'confirmations reached', on: [...DEPOSIT, 'deposit_failed'], from: ['detecting'], when: paidFinal, to: 'confirmed', events: [E.confirmed] },

  // Only a payment some counted money had moved: a pending one never had any (a deposit that does
  // not count, another coin or one not enabled, leaves it pending), so one of those failing leaves it pending too.
  { rule: 'funds never final', on: ['deposit_failed'], from: ['partially_paid', 'detecting', 'underpaid'], when: nothing, to: 'failed', events: [E.failed] },
  { rule: 'short again before the deadline', on: ['deposit_failed'], from: ['detecting'], when: (f) => partial(f) && !f.deadlinePassed, to: 'partially_paid', events: [E.partiallyPaid] },
  { rule: 'short again after the deadline', on: ['deposit_failed'], from: ['detecting'], when: (f) => partial(f) && f.deadlinePassed, to: 'underpaid', events: [E.underpaid] },

  { rule: 'deadline, nothing arrived', on: ['deadline'], from: WAITING, when: nothing, to: 'expired', events: [E.expired] },
  { rule: 'deadline, part arrived', on: ['deadline'], from: ['partially_paid'], when: partial, to: 'underpaid', events: [E.underpaid] },

  { rule: 'late deposit, paid and final', on: ['late_deposit'], from: REOPENABLE, when: paidFinal, to: 'confirmed', events: [E.detecting, E.lateDeposit, E.confirmed] },
  { rule: 'late deposit completes', on: ['late_deposit'], from: REOPENABLE, when: paid, to: 'detecting', events: [E.detecting, E.lateDeposit] },
  { rule: 'late deposit still short', on: ['late_deposit'], from: REOPENABLE, when: shortAgain, to: 'underpaid', events: [E.lateDeposit, E.underpaid] },
  // Uncounted (another coin, a coin not enabled) or after confirmation: recorded, status unchanged.
  { rule: 'late deposit changes nothing', on: ['late_deposit'], from: [...REOPENABLE, 'confirmed'], when: () => true, to: 'unchanged', events: [E.lateDeposit] },
];

export interface StatusChange {
  status: PaymentStatus;
  events: PaymentEventType[];
  /** The row that matched, for logs and tests. */
  rule: string;
}

/** The status after `trigger` given `facts`, with the events to raise; null when nothing applies. */
export function nextStatus(facts: PaymentFacts, trigger: StatusTrigger): StatusChange | null {
  const row = TRANSITIONS.find((t) => t.on.includes(trigger) && t.from.includes(facts.status) && t.when(facts));
  if (!row) return null;
  return { status: row.to === 'unchanged' ? facts.status : row.to, events: [...row.events], rule: row.rule };
}
