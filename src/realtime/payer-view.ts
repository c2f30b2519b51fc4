// Pure: what a payer may see of a payment (spec 4.2) and the `payment:update` payload of spec 6.2,
// whole payment plus the older flat form.
import { payerView as payerFields, PRIVATE_FIELDS } from '../payments/views.ts';
import type { PayerNames } from '../accounts/index.ts';

export type PaymentJson = Record<string, unknown> & { id: string };

export { PRIVATE_FIELDS };

/** What a payer may see of a payment (the payments module's one rule). */
export function payerView(payment: PaymentJson): PaymentJson {
  return payerFields(payment) as PaymentJson;
}

interface DepositJson {
  tx_id?: unknown;
  confirmations?: unknown;
}

/** The deposit the flat form speaks of: the latest one (deposits are listed oldest first). */
function latestDeposit(payment: PaymentJson): DepositJson | undefined {
  const d = payment.deposits;
  return Array.isArray(d) && d.length > 0 ? (d[d.length - 1] as DepositJson) : undefined;
}

export interface CheckoutUpdate {
  type: string;
  payment: PaymentJson;
  id: string;
  livemode: unknown;
  order_id: unknown;
  status: unknown;
  tx_id?: unknown;
  confirmations?: unknown;
  /** Here the amount received so far (spec 6.2), not the amount asked. */
  crypto_amount: unknown;
  token: unknown;
  chain: unknown;
  confirmed_at?: unknown;
}

/** Who the payer pays, by the payment's merchant and store; empty when not known here yet. */
export type NamesOf = (merchantId: string, storeId: string | null) => PayerNames;

/**
 * `payment:update` for the checkout socket: `payment` is the payer's view, with `merchant_name`
 * (and `store_name`) as GET /checkout/{token} gives them.
 */
export function checkoutUpdate(type: string, payment: PaymentJson, names?: PayerNames): CheckoutUpdate {
  const last = latestDeposit(payment);
  const out: CheckoutUpdate = {
    type,
    payment: names ? Object.assign(payerView(payment), names) : payerView(payment),
    id: payment.id,
    livemode: payment.livemode,
    order_id: payment.order_id,
    status: payment.status,
    crypto_amount: payment.received_amount ?? '0',
    token: payment.token,
    chain: payment.chain,
  };
  const txId = payment.tx_id ?? last?.tx_id;
  const confirmations = payment.confirmations ?? last?.confirmations;
  if (txId !== undefined) out.tx_id = txId;
  if (confirmations !== undefined) out.confirmations = confirmations;
  if (payment.confirmed_at !== undefined) out.confirmed_at = payment.confirmed_at;
  return out;
}

/** `payment:update` for the dashboard: the checkout event plus `merchant_id`, with the whole payment as REST gives it. */
export function dashboardUpdate(type: string, payment: PaymentJson, merchantId: string, checkoutBase: string | null = null): CheckoutUpdate & { merchant_id: string } {
  return { ...checkoutUpdate(type, payment), payment: withCheckoutUrl(payment, checkoutBase), merchant_id: merchantId };
}

/**
 * The payment as the REST routes give it (spec 6.3): the event data keeps checkout_token, and
 * checkout_url follows it when a checkout page is served (payments/views.ts paymentJson).
 */
function withCheckoutUrl(payment: PaymentJson, checkoutBase: string | null): PaymentJson {
  const token = payment.checkout_token;
  if (checkoutBase === null || typeof token !== 'string') return payment;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(payment)) {
    out[k] = v;
    if (k === 'checkout_token') out.checkout_url = `${checkoutBase}/pay/${token}`;
  }
  return out as PaymentJson;
}

export const isPaymentJson = (v: unknown): v is PaymentJson =>
  typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'string';

/** A payment read that answers 404 for an unknown token, as null. */
export async function foundOrNull(read: Promise<Record<string, unknown>>): Promise<PaymentJson | null> {
  try {
    const p = await read;
    return isPaymentJson(p) ? p : null;
  } catch (err) {
    if ((err as { status?: unknown }).status === 404) return null;
    throw err;
  }
}
