// A payment's stored events (GET /merchant/payments/{id}/events: webhook types only, oldest first,
// `data` exactly the notification data) and its trail (GET /merchant/payments/{id}/trail).
import { and, asc, count, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import { events } from '../events/index.ts';
import { auditEntries } from '../accounts/index.ts';
import { auditEntryJson } from '../audit/index.ts';
import { buildEnvelope } from '../webhooks/core.ts';
import type { ListParams } from '../platform/list-params.ts';
import { WEBHOOK_PAYMENT_EVENTS } from './payment-events.ts';
import { SETTLEMENT_EVENTS } from '../events/webhook-types.ts';
import type { DepositRow, PaymentRow } from './schema.ts';
import { depositJson } from './views.ts';

/** Rooms that add rows to a payment's trail (settlements, ledger, webhook deliveries) plug in here. */
export interface TrailSections {
  settlements(paymentId: string): Promise<unknown[]>;
  ledger(paymentId: string): Promise<unknown[]>;
  webhookDeliveries(paymentId: string): Promise<unknown[]>;
  unmatchedDeposits(paymentId: string): Promise<unknown[]>;
}

export const EMPTY_TRAIL_SECTIONS: TrailSections = {
  settlements: async () => [], ledger: async () => [], webhookDeliveries: async () => [], unmatchedDeposits: async () => [],
};

type EventRow = typeof events.$inferSelect;

/**
 * A payment's timeline: the events its webhook receives (spec 4.4 "the same events the webhook
 * receives"), which for a payment are its payment.* events and its direct settlements' settlement.*.
 */
export const TIMELINE_EVENTS: readonly string[] = [...WEBHOOK_PAYMENT_EVENTS, ...Object.values(SETTLEMENT_EVENTS)];

function storedEventJson(e: EventRow): Record<string, unknown> {
  return { ...buildEnvelope({ id: e.id, type: e.type, livemode: e.livemode, createdAt: e.createdAt, data: e.data }), merchant_id: e.merchantId, payment_id: e.paymentId };
}

export async function paymentEvents(ex: Executor, paymentId: string, page: ListParams): Promise<{ events: unknown[]; total: number }> {
  const where = and(eq(events.paymentId, paymentId), inArray(events.type, [...TIMELINE_EVENTS]));
  const rows = await ex.select().from(events).where(where).orderBy(asc(events.seq)).limit(page.limit).offset(page.offset);
  const [{ n }] = await ex.select({ n: count() }).from(events).where(where);
  return { events: rows.map(storedEventJson), total: Number(n) };
}

export async function paymentTrail(ex: Executor, p: PaymentRow, paymentView: Record<string, unknown>, deps: readonly DepositRow[], sections: TrailSections, now: Date): Promise<Record<string, unknown>> {
  const evs = await ex.select().from(events).where(and(eq(events.paymentId, p.id), inArray(events.type, [...TIMELINE_EVENTS]))).orderBy(asc(events.seq));
  const audit = await ex.select().from(auditEntries).where(eq(auditEntries.paymentId, p.id)).orderBy(asc(auditEntries.at));
  return {
    payment: paymentView,
    deposits: deps.map((d) => depositJson(d, { trail: true })),
    unmatched_deposits: await sections.unmatchedDeposits(p.id),
    events: evs.map(storedEventJson),
    webhook_deliveries: await sections.webhookDeliveries(p.id),
    settlements: await sections.settlements(p.id),
    ledger: await sections.ledger(p.id),
    audit: audit.map((a) => auditEntryJson(a)),
    generated_at: now.toISOString(),
  };
}
