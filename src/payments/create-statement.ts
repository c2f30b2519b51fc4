// A new payment written in ONE statement: the payment row (refused by the open-order index on a
// repeated order_id), its `payment.created` audit entry with the entry's `audit:entry` event, the
// socket event `payment.created` and the deadline timer, chained by CTEs on the inserted row. One
// statement is one atomic change, with a single round trip instead of a transaction of six: the
// create route is the hottest write of the service. The rows mirror what recordAudit, appendEvent
// and scheduleTimer write (same tables, same shapes); the slower transactional path in create.ts
// uses those helpers directly when a simulation starts with the payment.
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import { queryRows } from '../platform/db/index.ts';
import { newEventId, newId } from '../platform/ids.ts';
import { auditEntryJson, scrub, type Actor } from '../audit/index.ts';
import { payments, type PaymentRow } from './schema.ts';
import { paymentEventData } from './views.ts';
import { SOCKET_EVENTS } from './payment-events.ts';
import { DEADLINE_TIMER } from './deadlines.ts';
import { CREATED_ACTION, createdAuditAfter } from './create-audit.ts';

const AUDIT_EVENT = 'audit:entry';

/** Inserts the payment and everything that goes with its creation; false when its order is already open. */
export async function insertCreatedPayment(ex: Executor, p: PaymentRow, actor: Actor, now: Date): Promise<boolean> {
  const audit = {
    id: newId('aud', now), merchantId: p.merchantId, at: now, action: CREATED_ACTION,
    actor: { ...actor, merchant_id: actor.merchant_id ?? p.merchantId } as Record<string, unknown>,
    subject: p.id, paymentId: p.id, before: null, after: scrub(createdAuditAfter(p)), note: null,
  };
  const iso = now.toISOString();
  const json = (v: unknown) => sql`${JSON.stringify(v)}::jsonb`;
  const event = (type: string, livemode: boolean, paymentId: string | null, data: unknown) =>
    sql`(${newEventId(now)}::text, ${type}::text, ${p.merchantId}::text, ${paymentId}::text, ${livemode}::boolean, ${json(data)}, ${iso}::timestamptz)`;
  const rows = await queryRows<{ id: string }>(ex, sql`
    with p as (${ex.insert(payments).values(p).onConflictDoNothing().returning({ id: payments.id }).getSQL()}),
    a as (
      insert into audit_entries (id, merchant_id, at, action, actor, subject, payment_id, before, after, note)
      select ${audit.id}::text, ${audit.merchantId}::text, ${iso}::timestamptz, ${audit.action}::text, ${json(audit.actor)}, ${audit.subject}::text, ${audit.paymentId}::text, null::jsonb, ${json(audit.after)}, null::text from p
    ),
    e as (
      insert into events (id, type, merchant_id, payment_id, livemode, data, created_at)
      select v.* from (values ${event(AUDIT_EVENT, false, null, auditEntryJson(audit))}, ${event(SOCKET_EVENTS.created, p.livemode, p.id, paymentEventData(p, []))})
        as v(id, type, merchant_id, payment_id, livemode, data, created_at)
      where exists (select 1 from p)
    ),
    t as (
      insert into timers (kind, key, run_at, payload) select ${DEADLINE_TIMER}::text, ${p.id}::text, ${p.expiresAt.toISOString()}::timestamptz, '{}'::jsonb from p
      on conflict (kind, key) do update set run_at = excluded.run_at, payload = excluded.payload, attempts = 0, last_error = null
    )
    select id from p`);
  return rows.length === 1;
}
