// The Delivery object of spec part 2, from its row. Optional fields are absent when unset; the
// history goes only where the full delivery is asked for (one delivery, a payment's trail).
import type { DeliveryRow, HistoryEntry } from './schema.ts';

export const HISTORY_KEPT = 50;

export function deliveryJson(r: DeliveryRow, opts: { history?: boolean } = {}): Record<string, unknown> {
  return {
    id: r.id,
    merchant_id: r.merchantId,
    livemode: r.livemode,
    target: r.target,
    url: r.url ?? '',
    event_id: r.eventId,
    event_type: r.eventType,
    payload: r.payload,
    status: r.status,
    attempts: r.attempts,
    max_attempts: r.maxAttempts,
    next_attempt_at: r.nextAttemptAt.toISOString(),
    ...(r.lastStatusCode !== null ? { last_status_code: r.lastStatusCode } : {}),
    ...(r.lastError !== null ? { last_error: r.lastError } : {}),
    ...(r.lastAttemptAt ? { last_attempt_at: r.lastAttemptAt.toISOString() } : {}),
    ...(r.deliveredAt ? { delivered_at: r.deliveredAt.toISOString() } : {}),
    ...(r.resolvedAt ? { resolved_at: r.resolvedAt.toISOString() } : {}),
    ...(r.resolutionNote !== null ? { resolution_note: r.resolutionNote } : {}),
    created_at: r.createdAt.toISOString(),
    ...(opts.history ? { history: r.history } : {}),
  };
}

const asDate = (v: unknown): Date | null => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(String(v)));

/** A row of raw SQL (`returning *`) as the Drizzle row type. */
export function deliveryFromSql(r: Record<string, unknown>): DeliveryRow {
  return {
    id: String(r.id), merchantId: String(r.merchant_id), livemode: Boolean(r.livemode), target: r.target as DeliveryRow['target'],
    url: (r.url as string | null) ?? null, host: String(r.host), paymentId: (r.payment_id as string | null) ?? null,
    eventId: String(r.event_id), eventType: String(r.event_type), payload: String(r.payload), status: r.status as DeliveryRow['status'],
    attempts: Number(r.attempts), maxAttempts: Number(r.max_attempts), nextAttemptAt: asDate(r.next_attempt_at)!,
    claim: (r.claim as string | null) ?? null, leaseUntil: asDate(r.lease_until),
    lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code), lastError: (r.last_error as string | null) ?? null,
    lastAttemptAt: asDate(r.last_attempt_at), deliveredAt: asDate(r.delivered_at), resolvedAt: asDate(r.resolved_at),
    resolutionNote: (r.resolution_note as string | null) ?? null,
    history: (typeof r.history === 'string' ? JSON.parse(r.history) : r.history) as HistoryEntry[], createdAt: asDate(r.created_at)!,
  };
}
