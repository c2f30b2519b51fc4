// The audit entry of a payment's creation (action `payment.created`, actor the API key).
import type { PaymentRow } from './schema.ts';

export const CREATED_ACTION = 'payment.created';

export const createdAuditAfter = (p: Pick<PaymentRow, 'orderId' | 'usdAmount' | 'token' | 'livemode'>): Record<string, unknown> =>
  ({ order_id: p.orderId, usd_amount: p.usdAmount, token: p.token, livemode: p.livemode });
