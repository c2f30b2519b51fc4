// Which deposits count toward a payment, how much has arrived, and what that does to the status
// (spec part 1 "Payment behaviour" 4-6, part 3). Pure: the caller loads the payment and its
// deposits, applies one change, and stores the outcome and its events in one transaction.
import { dec, usdHalfUp, type Decimal } from '../money/index.ts';
import { tokenDef, type TokenSymbol } from '../tokens/index.ts';
import { isClosed, nextStatus, PAYMENT_EVENTS, type Coverage, type PaymentEventType, type PaymentStatus, type StatusTrigger } from './status.ts';
import { BPS } from './service-fee.ts';

/** Money arriving up to this long after expires_at can still complete the payment. */
export const LATE_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface AccountedPayment {
  status: PaymentStatus;
  /** Empty until a coin is chosen. */
  token: TokenSymbol | '';
  amountDueUsd: Decimal;
  /** Base units of `token` the customer was asked for. */
  cryptoAmount: bigint;
  rateLocked: Decimal;
  underpaidToleranceBps: number;
  acceptOtherAssets: boolean;
  /** The merchant's enabled_tokens captured at creation. */
  enabledTokens: readonly TokenSymbol[];
  expiresAt: Date;
}

export type DepositState = 'pending' | 'final' | 'failed';

export interface DepositFacts {
  id: string;
  token: TokenSymbol;
  /** Base units of `token`. */
  amount: bigint;
  /** At rate_locked for the payment's coin, at the market price for another (see depositUsdValue). */
  usdValue: Decimal;
  confirmations: number;
  confirmationsRequired: number;
  state: DepositState;
  /** Arrived after the payment had closed. */
  late: boolean;
  seenAt: Date;
}

/** usd_value of a deposit: its amount at `rate` (rate_locked, or the market price for another coin), half-up to the cent. */
export function depositUsdValue(token: TokenSymbol, amount: bigint, rate: Decimal): Decimal {
  return usdHalfUp(coins(token, amount).mul(rate));
}

const coins = (token: TokenSymbol, amount: bigint): Decimal => dec(amount).div(dec(10n ** BigInt(tokenDef(token).decimals)));

/** Still within 24 hours of expires_at. */
export const withinLateWindow = (expiresAt: Date, at: Date): boolean => at.getTime() <= expiresAt.getTime() + LATE_WINDOW_MS;

/**
 * Whether a deposit counts toward the payment: never when failed, never in a coin not enabled,
 * another enabled coin only with accept_other_assets, and a late one only within the late window.
 */
export function depositCounts(payment: AccountedPayment, deposit: DepositFacts): boolean {
  if (deposit.state === 'failed' || payment.token === '') return false;
  if (!payment.enabledTokens.includes(deposit.token)) return false;
  if (deposit.token !== payment.token && !payment.acceptOtherAssets) return false;
  return !deposit.late || withinLateWindow(payment.expiresAt, deposit.seenAt);
}

/** Paid when short of amount_due_usd by at most underpaid_tolerance_bps of it (overpaid is paid). */
export function isPaidWithinTolerance(amountDueUsd: Decimal, coveredUsd: Decimal, toleranceBps: number): boolean {
  return amountDueUsd.minus(coveredUsd).lte(amountDueUsd.mul(toleranceBps).div(BPS));
}

export interface Tally {
  /** The `counted` flag of each deposit, by id. */
  counted: ReadonlyMap<string, boolean>;
  /** Counted deposits of the payment's own coin, base units. */
  receivedAmount: bigint;
  /** usd_value of every counted deposit. */
  receivedUsd: Decimal;
  coverage: Coverage;
  finalCoverage: Coverage;
}

/**
 * The dollars a deposit covers. Its own coin is valued exactly at rate_locked (unrounded, so that
 * sending exactly crypto_amount always pays and a sub-cent shortfall is not rounded away); another
 * coin at its usd_value.
 */
function coveredUsd(payment: AccountedPayment, d: DepositFacts): Decimal {
  return d.token === payment.token ? coins(d.token, d.amount).mul(payment.rateLocked) : d.usdValue;
}

function coverageOf(payment: AccountedPayment, usd: Decimal): Coverage {
  if (usd.lte(0)) return 'none';
  return isPaidWithinTolerance(payment.amountDueUsd, usd, payment.underpaidToleranceBps) ? 'paid' : 'partial';
}

export function tallyDeposits(payment: AccountedPayment, deposits: readonly DepositFacts[]): Tally {
  const counted = new Map<string, boolean>();
  let receivedAmount = 0n;
  let receivedUsd = dec(0);
  let covered = dec(0);
  let coveredFinal = dec(0);
  for (const d of deposits) {
    const counts = depositCounts(payment, d);
    counted.set(d.id, counts);
    if (!counts) continue;
    if (d.token === payment.token) receivedAmount += d.amount;
    receivedUsd = receivedUsd.plus(d.usdValue);
    covered = covered.plus(coveredUsd(payment, d));
    if (d.state === 'final') coveredFinal = coveredFinal.plus(coveredUsd(payment, d));
  }
  return { counted, receivedAmount, receivedUsd, coverage: coverageOf(payment, covered), finalCoverage: coverageOf(payment, coveredFinal) };
}

/** One thing that happened to the payment. `deposit` is the id of a deposit in the list. */
export type PaymentChange =
  | { kind: 'deposit_seen' | 'deposit_confirmations' | 'deposit_final' | 'deposit_failed'; deposit: string }
  | { kind: 'deadline' };

export interface AccountingOutcome {
  status: PaymentStatus;
  changed: boolean;
  /** Webhook events to raise, in order (status events first, then wrong_asset / late_deposit). */
  events: PaymentEventType[];
  tally: Tally;
  /** The transition row applied, when one did. */
  rule?: string;
}

function triggerOf(payment: AccountedPayment, change: PaymentChange): StatusTrigger | null {
  switch (change.kind) {
    case 'deadline': return 'deadline';
    case 'deposit_final': return 'deposit_final';
    case 'deposit_failed': return 'deposit_failed';
    // A deposit arriving on a closed payment is a late deposit.
    case 'deposit_seen': return isClosed(payment.status) ? 'late_deposit' : 'deposit';
    // Confirmations alone move no status (the checkout socket's payment.confirmations is the caller's).
    case 'deposit_confirmations': return null;
  }
}

/**
 * Applies one change to the payment: the new status, the events to raise and the tally of its
 * deposits (which already include the change: a seen deposit is in the list, a failed one has
 * state `failed`). `now` decides whether the deadline has passed.
 */
export function applyChange(payment: AccountedPayment, deposits: readonly DepositFacts[], change: PaymentChange, now: Date): AccountingOutcome {
  const tally = tallyDeposits(payment, deposits);
  const unchanged: AccountingOutcome = { status: payment.status, changed: false, events: [], tally };
  const deposit = change.kind === 'deadline' ? undefined : deposits.find((d) => d.id === change.deposit);
  if (change.kind !== 'deadline' && !deposit) throw new Error(`deposit ${change.deposit} is not among the payment's deposits`);

  const trigger = triggerOf(payment, change);
  if (trigger === null) return unchanged;
  // Past the late window a transfer is no longer this payment's: the caller records it unmatched.
  if (trigger === 'late_deposit' && deposit && !withinLateWindow(payment.expiresAt, deposit.seenAt)) return unchanged;
  if (trigger === 'deadline' && now.getTime() < payment.expiresAt.getTime()) return unchanged;

  const step = nextStatus({
    status: payment.status,
    hasCoin: payment.token !== '',
    coverage: tally.coverage,
    finalCoverage: tally.finalCoverage,
    deadlinePassed: now.getTime() >= payment.expiresAt.getTime(),
    ...(change.kind === 'deposit_seen' && deposit ? { depositCounted: tally.counted.get(deposit.id) ?? false } : {}),
  }, trigger);

  const events: PaymentEventType[] = step ? [...step.events] : [];
  if (change.kind === 'deposit_seen' && deposit && payment.token !== '' && deposit.token !== payment.token) {
    // Raised whether or not it counts, after the status events (and after late_deposit).
    events.push(PAYMENT_EVENTS.wrongAsset);
  }
  const status = step?.status ?? payment.status;
  return { status, changed: status !== payment.status, events, tally, ...(step ? { rule: step.rule } : {}) };
}
