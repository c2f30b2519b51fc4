// The query of a payments list (spec 4.4: the filters of /v1/payments) plus the dashboard's own
// (README "Dashboard additions"): `order_id` (exact), `q` (contains, in the order id, payment id,
// customer email or deposit address), `from` and `to` (inclusive UTC days of `created_at`). An
// unknown status, coin or chain matches nothing, as before; a bad date, an over-long search or a
// filter given twice is a 400 naming the field.
import { badRequest } from '../platform/errors.ts';
import { isIdShaped, longerThan } from '../platform/fields.ts';
import { tooLongMessage } from '../platform/text-input.ts';
import { parseDay } from '../audit/query.ts';
import { isToken } from '../tokens/index.ts';
import { CHAINS } from '../config.ts';
import { isPaymentStatus } from './pure.ts';
import type { PaymentFilters } from './repository.ts';

export const FROM_NOT_A_DAY = 'from must be a date: 2006-01-02';
export const TO_NOT_A_DAY = 'to must be a date: 2006-01-02';
export const dayMessage = (field: 'from' | 'to'): string => (field === 'from' ? FROM_NOT_A_DAY : TO_NOT_A_DAY);
export const FROM_AFTER_TO = 'from must not be after to';
const MAX_SEARCH = 200;
export const Q_TOO_LONG = tooLongMessage('q', MAX_SEARCH);
export const ORDER_ID_TOO_LONG = tooLongMessage('order_id', MAX_SEARCH);
/** Matches no row: what an unknown filter value becomes. */
const NONE = '__none__';
const DAY_MS = 86_400_000;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function day(field: 'from' | 'to', v: unknown): Date | undefined {
  if (v === undefined || v === '') return undefined;
  const d = typeof v === 'string' ? parseDay(v) : null;
  if (!d) throw badRequest(dayMessage(field));
  return d;
}

export const givenOnce = (field: string): string => `${field} must be given once`;
/** Filters that take one value: one repeated (`?status=a&status=b`) would otherwise filter nothing. */
const SINGLE = ['status', 'token', 'chain', 'store_id', 'order_id', 'q', 'from', 'to'] as const;
export const GIVEN_ONCE_ERRORS = SINGLE.map(givenOnce);

/** The filters of a list query; `storeFilter` false for a storefront key (its store is its scope). */
export function paymentFilters(query: Record<string, unknown>, storeFilter: boolean): PaymentFilters {
  for (const field of SINGLE) if (Array.isArray(query[field])) throw badRequest(givenOnce(field));
  const f: PaymentFilters = {};
  const status = str(query.status);
  if (status !== undefined) f.status = isPaymentStatus(status) ? status : NONE;
  const token = str(query.token);
  if (token !== undefined) f.token = isToken(token) ? token : NONE;
  const chain = str(query.chain);
  if (chain !== undefined) f.chain = (CHAINS as readonly string[]).includes(chain) ? chain : NONE;
  const store = str(query.store_id);
  if (store !== undefined && storeFilter) f.storeId = isIdShaped(store) ? store : NONE;
  const orderId = str(query.order_id);
  if (orderId !== undefined) {
    if (longerThan(orderId, MAX_SEARCH)) throw badRequest(ORDER_ID_TOO_LONG);
    f.orderId = orderId;
  }
  const q = str(query.q)?.trim();
  if (q) {
    if (q.length > MAX_SEARCH) throw badRequest(Q_TOO_LONG);
    f.search = q;
  }
  const from = day('from', query.from);
  const to = day('to', query.to);
  if (from && to && from.getTime() > to.getTime()) throw badRequest(FROM_AFTER_TO);
  if (from) f.createdFrom = from;
  if (to) f.createdBefore = new Date(to.getTime() + DAY_MS);
  return f;
}
