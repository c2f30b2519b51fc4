// The Delivery object of spec part 2, from its row. Optional fields are absent when unset; the
// history goes only where the full delivery is asked for (one delivery, a payment's trail).
import type { DeliveryRow } from './schema.ts';

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
