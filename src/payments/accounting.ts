// Applies one change to a locked payment: the pure applyChange decides the status and events;
// this stores the deposits' `counted`, the payment's figures and status with a compare-and-set,
// and writes the events, all in the caller's transaction.
import { eq } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import { conflict } from '../platform/errors.ts';
import { dec } from '../money/index.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import { applyChange, isClosed, PAYMENT_EVENTS, type AccountedPayment, type DepositFacts, type PaymentChange, type PaymentStatus, type TokenInfo } from './pure.ts';
import { deposits, type DepositRow, type PaymentRow } from './schema.ts';
import { updatePaymentIf } from './repository.ts';
import { emitPaymentEvent, SOCKET_EVENTS } from './payment-events.ts';

export function accountedPayment(p: PaymentRow): AccountedPayment {
  return {
    status: p.status as PaymentStatus,
    token: p.token as TokenSymbol | '',
    amountDueUsd: dec(p.amountDueUsd),
    cryptoAmount: p.cryptoAmount ?? 0n,
    rateLocked: dec(p.rateLocked ?? '0'),
    underpaidToleranceBps: p.settings.underpaid_tolerance_bps,
    acceptOtherAssets: p.settings.accept_other_assets,
    enabledTokens: p.settings.enabled_tokens,
    expiresAt: p.expiresAt,
  };
}

export function depositFacts(d: DepositRow): DepositFacts {
  return {
    id: d.id, token: d.token as TokenSymbol, amount: d.amount, usdValue: dec(d.usdValue),
    confirmations: d.confirmations, confirmationsRequired: d.confirmationsRequired,
    state: d.status as DepositFacts['state'], late: d.late, seenAt: d.seenAt,
  };
}

export const CHANGED_CONCURRENTLY = 'the payment changed meanwhile; try again';

/**
 * Stores the outcome of `change` on payment `p` (locked by the caller) whose deposits are `deps`
 * (the change already applied to them). Raises the status events, then `payment.deposit` when a
 * deposit became final or failed without moving the status. Returns the stored row and deposits.
 * `tokenOptions`: of a payment with no coin, carried by the status events (the deadline's
 * payment.expired) for the checkout socket.
 */
export async function applyAndStore(tx: Executor, p: PaymentRow, deps: DepositRow[], change: PaymentChange, now: Date, tokenOptions?: TokenInfo[]): Promise<{ payment: PaymentRow; deposits: DepositRow[] }> {
  const outcome = applyChange(accountedPayment(p), deps.map(depositFacts), change, now);
  const stored: DepositRow[] = [];
  for (const d of deps) {
    const counted = outcome.tally.counted.get(d.id) ?? false;
    if (counted !== d.counted) await tx.update(deposits).set({ counted }).where(eq(deposits.id, d.id));
    stored.push({ ...d, counted });
  }
  const changedDeposit = change.kind === 'deadline' ? undefined : stored.find((d) => d.id === change.deposit);
  const live = changedDeposit && changedDeposit.counted && changedDeposit.status === 'pending' ? changedDeposit : undefined;
  const status = outcome.status;
  const row = await updatePaymentIf(tx, p.id, { status: p.status }, {
    status,
    receivedAmount: outcome.tally.receivedAmount,
    receivedUsd: outcome.tally.receivedUsd.toFixed(),
    ...(live ? { confirmations: live.confirmations, confirmationsRequired: live.confirmationsRequired } : {}),
    ...(status === 'confirmed' && !p.confirmedAt ? { confirmedAt: now } : {}),
    ...(outcome.changed && isClosed(status) ? { closedAt: now } : {}),
    updatedAt: now,
  });
  if (!row) throw conflict(CHANGED_CONCURRENTLY);
  // Paid and final at once: the events before payment.confirmed describe the payment as it was
  // while detecting (data.status is the truth a receiver acts on).
  const confirmedAt = outcome.events.indexOf(PAYMENT_EVENTS.confirmed);
  // (with the confirmations of the deposit that paid it: reported while detecting, spec 2 Payment object).
  const paying = changedDeposit && changedDeposit.counted ? changedDeposit : undefined;
  const detectingView: PaymentRow = {
    ...row, status: 'detecting', confirmedAt: null, closedAt: null,
    ...(paying ? { confirmations: paying.confirmations, confirmationsRequired: paying.confirmationsRequired } : {}),
  };
  for (const [i, type] of outcome.events.entries()) {
    await emitPaymentEvent(tx, type, confirmedAt > i && row.status === 'confirmed' ? detectingView : row, stored, now, tokenOptions);
  }
  if (!outcome.changed && (change.kind === 'deposit_final' || change.kind === 'deposit_failed')) {
    await emitPaymentEvent(tx, SOCKET_EVENTS.deposit, row, stored, now);
  }
  return { payment: row, deposits: stored };
}
