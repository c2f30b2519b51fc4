// The audit entry of a payment's creation (action `payment.created`, actor the API key).
import type { Actor, AuditInput } from '../audit/index.ts';
import type { PaymentRow } from './schema.ts';

export const CREATED_ACTION = 'payment.created';

export const createdAuditAfter = (p: Pick<PaymentRow, 'orderId' | 'usdAmount' | 'token' | 'livemode'>): Record<string, unknown> =>
  ({ order_id: p.orderId, usd_amount: p.usdAmount, token: p.token, livemode: p.livemode });

/** The audit input of a payment's creation, whichever path writes it (create-statement.ts or a simulation's transaction). */
export const createdAuditInput = (p: PaymentRow, actor: Actor, at: Date): AuditInput =>
  ({ merchantId: p.merchantId, action: CREATED_ACTION, actor, subject: p.id, paymentId: p.id, after: createdAuditAfter(p), at });
