// The Customer object of CONTRACT.md "Customers", and its socket event.
import type { Executor } from '../platform/db/index.ts';
import { appendEvent, type NewEvent } from '../events/index.ts';
import { formatUsd2 } from '../money/index.ts';
import type { CustomerRow } from './schema.ts';

export const CUSTOMER_UPDATE = 'customer:update';

export function customerJson(c: CustomerRow): Record<string, unknown> {
  return {
    id: c.id,
    merchant_id: c.merchantId,
    livemode: c.livemode,
    email: c.email,
    ...(c.name !== null ? { name: c.name } : {}),
    ...(c.metadata !== null ? { metadata: c.metadata } : {}),
    payments: Number(c.payments),
    volume_usd: formatUsd2(c.volumeUsd),
    ...(c.firstPaymentAt ? { first_payment_at: c.firstPaymentAt.toISOString() } : {}),
    ...(c.lastPaymentAt ? { last_payment_at: c.lastPaymentAt.toISOString() } : {}),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

/** `customer:update` (spec 6.3): made, changed, or one of its payments confirmed. */
export const customerUpdateEvent = (c: CustomerRow, at: Date): NewEvent =>
  ({ type: CUSTOMER_UPDATE, livemode: c.livemode, merchantId: c.merchantId, data: customerJson(c), at });

/** `customer:update` in the caller's transaction. */
export const emitCustomerUpdate = (tx: Executor, c: CustomerRow, at: Date) => appendEvent(tx, customerUpdateEvent(c, at));
