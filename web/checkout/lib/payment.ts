// The payer's view of a payment (GET /checkout/{token}, spec 4.2) and what the page makes of it:
// which screen, what is still due, which deposits need a word. Pure, but for the gateway's clock
// screenOf reads when given no time.
import { cents, dollars, isPositive, remaining } from './amounts.ts';
import { tokenDef } from './networks.ts';
import { serverNow } from './server-clock.ts';

export type Status = 'pending' | 'partially_paid' | 'detecting' | 'confirmed' | 'underpaid' | 'expired' | 'failed';

export interface Deposit {
  tx_id: string;
  token: string;
  amount: string;
  usd_value: string;
  counted: boolean;
  confirmations: number;
  confirmations_required: number;
  status: string;
  late?: boolean;
}

export interface TokenOption {
  token: string;
  chain: string;
  min_usd?: string;
  network_fee_usd?: string;
  amount_due_usd?: string;
}

export interface Payment {
  id: string;
  status: Status;
  token: string;
  chain: string;
  livemode: boolean;
  order_id?: string;
  deposit_address: string;
  destination_tag?: number;
  crypto_amount?: string;
  received_amount?: string;
  usd_amount: string;
  amount_due_usd: string;
  received_usd?: string;
  fees_paid_by_customer?: boolean;
  network_fee?: string;
  network_fee_usd?: string;
  rate_locked?: string;
  extra_usd?: string;
  price_amount?: string;
  price_currency?: string;
  deposits?: Deposit[];
  expires_at?: string;
  confirmations?: number;
  confirmations_required?: number;
  description?: string;
  success_url?: string;
  cancel_url?: string;
  token_options?: TokenOption[];
  simulation?: { outcome: string; state: string };
  merchant_name?: string;
  store_name?: string;
}

/** Spec 3: a late deposit counts up to 24 hours after expires_at. */
export const LATE_WINDOW_MS = 24 * 60 * 60 * 1000;

export type Phase = 'choose' | 'pay' | 'detecting' | 'confirmed' | 'closed';

export interface Screen {
  phase: Phase;
  /** Coins still to send (pay phase; also what an underpaid payment lacks); absent when not known in coins. */
  stillDue?: string;
  /** Dollars still due when part was paid in another coin (then no coin amount is given). */
  stillDueUsd?: string;
  /** Part of the amount arrived. */
  partial: boolean;
  /** Deposits in another coin than the payment's (payment.wrong_asset). */
  otherCoin: Deposit[];
  /** A deposit that arrived after the deadline was counted. */
  lateCounted: boolean;
  /** Until when a late deposit still counts (closed payments, while that time is still ahead). */
  lateUntil?: Date;
  /** The test-mode simulate panel applies (spec 3: pending or partially paid, none running). */
  canSimulate: boolean;
}

const OPEN_FOR_MONEY: readonly Status[] = ['pending', 'partially_paid'];
const CLOSED_UNPAID: readonly Status[] = ['expired', 'underpaid', 'failed'];

export function phaseOf(p: Payment): Phase {
  if (p.status === 'pending' && !p.token) return 'choose';
  if (OPEN_FOR_MONEY.includes(p.status)) return 'pay';
  if (p.status === 'detecting') return 'detecting';
  if (p.status === 'confirmed') return 'confirmed';
  return 'closed';
}

/** `now`: the gateway's clock; past the late window no deposit completes the payment any more. */
export function screenOf(p: Payment, now: number = serverNow()): Screen {
  const deposits = p.deposits ?? [];
  const otherCoin = deposits.filter((d) => p.token !== '' && d.token !== p.token);
  const decimals = tokenDef(p.token)?.decimals;
  let stillDue: string | undefined;
  let stillDueUsd: string | undefined;
  if (p.crypto_amount && decimals !== undefined) {
    if (otherCoin.some((d) => d.counted)) {
      // Part was paid in another coin, valued in dollars: say what is due in dollars.
      const due = cents(p.amount_due_usd);
      const got = cents(p.received_usd);
      if (due !== null && got !== null) stillDueUsd = dollars(due > got ? due - got : 0n);
    } else {
      stillDue = remaining(p.crypto_amount, p.received_amount ?? '0', decimals) ?? undefined;
    }
  }
  const expires = p.expires_at ? Date.parse(p.expires_at) : NaN;
  const lateOpen = CLOSED_UNPAID.includes(p.status) && Number.isFinite(expires) && now <= expires + LATE_WINDOW_MS;
  return {
    phase: phaseOf(p),
    stillDue,
    stillDueUsd,
    partial: isPositive(p.received_amount) || otherCoin.some((d) => d.counted),
    otherCoin,
    lateCounted: deposits.some((d) => d.late && d.counted),
    lateUntil: lateOpen ? new Date(expires + LATE_WINDOW_MS) : undefined,
    canSimulate: !p.livemode && OPEN_FOR_MONEY.includes(p.status) && p.simulation?.state !== 'running',
  };
}

/** What an underpaid payment got, of what, and the rest that completes it (late deposit, spec 3). */
export interface Shortfall {
  /** In dollars (part came in another coin, counted at its dollar value), else in the payment's coin. */
  inUsd: boolean;
  received: string;
  due: string;
  /** What is still missing; absent when not known or nothing is. */
  rest?: string;
}

export function shortfallOf(p: Payment, s: Screen): Shortfall {
  // Another coin's deposit is no amount of this coin: "0 ETH of 0.01 ETH arrived" would deny it.
  if (s.stillDueUsd !== undefined) {
    return { inUsd: true, received: p.received_usd ?? '0', due: p.amount_due_usd, ...(isPositive(s.stillDueUsd) ? { rest: s.stillDueUsd } : {}) };
  }
  return { inUsd: false, received: p.received_amount ?? '0', due: p.crypto_amount ?? '', ...(isPositive(s.stillDue) ? { rest: s.stillDue } : {}) };
}

export interface Breakdown {
  /** The merchant's price (usd_amount). */
  price: string;
  /** Network fee in dollars, when the customer pays it. */
  networkFee?: string;
  /** The service fee (and conversion share) when the customer pays them: the rest of amount_due_usd. */
  serviceFee?: string;
  /** Added to reach an exchange's minimum (received by the merchant). */
  extra?: string;
  total: string;
}

/** The price of a payment in parts (spec "Fees"): fees appear only when the customer pays them. */
export function breakdownOf(p: Payment): Breakdown {
  const price = cents(p.usd_amount);
  const total = cents(p.amount_due_usd);
  const extra = cents(p.extra_usd);
  const fee = p.fees_paid_by_customer ? cents(p.network_fee_usd) : null;
  const out: Breakdown = { price: p.usd_amount, total: p.amount_due_usd };
  if (extra !== null && extra > 0n) out.extra = dollars(extra);
  if (p.fees_paid_by_customer && price !== null && total !== null) {
    if (fee !== null) out.networkFee = dollars(fee);
    const service = total - price - (fee ?? 0n) - (extra ?? 0n);
    if (service > 0n) out.serviceFee = dollars(service);
  }
  return out;
}
