// A new payment written in ONE statement: the payment row (refused by the open-order index on a
// repeated order_id), its `payment.created` audit entry with the entry's `audit:entry` event, the
// socket event `payment.created` and the deadline timer, chained by CTEs on the inserted row. One
// statement is one atomic change, with a single round trip instead of a transaction of six: the
// create route is the hottest write of the service, so its SQL text is also written out once
// rather than built per request. The rows mirror what recordAudit, appendEvent and scheduleTimer
// write (same tables, same shapes); create.ts uses those helpers directly when a simulation
// starts with the payment.
import type { Database } from '../platform/db/index.ts';
import { newEventId, newId } from '../platform/ids.ts';
import { auditEntryJson, scrub, type Actor } from '../audit/index.ts';
import type { PaymentRow } from './schema.ts';
import { paymentEventData } from './views.ts';
import { SOCKET_EVENTS } from './payment-events.ts';
import { DEADLINE_TIMER } from './deadlines.ts';
import { CREATED_ACTION, createdAuditAfter } from './create-audit.ts';

const AUDIT_EVENT = 'audit:entry';

/** payments columns in insert order, with the value each takes from the row. */
const PAYMENT_COLUMNS: readonly [string, (p: PaymentRow) => unknown][] = [
  ['id', (p) => p.id], ['merchant_id', (p) => p.merchantId], ['store_id', (p) => p.storeId], ['livemode', (p) => p.livemode],
  ['order_id', (p) => p.orderId], ['status', (p) => p.status], ['token', (p) => p.token], ['chain', (p) => p.chain],
  ['deposit_address', (p) => p.depositAddress], ['address_index', (p) => p.addressIndex], ['destination_tag', (p) => p.destinationTag],
  ['usd_amount', (p) => p.usdAmount], ['amount_due_usd', (p) => p.amountDueUsd], ['extra_usd', (p) => p.extraUsd],
  ['crypto_amount', (p) => p.cryptoAmount?.toString() ?? null], ['rate_locked', (p) => p.rateLocked],
  ['network_fee', (p) => p.networkFee?.toString() ?? null], ['network_fee_usd', (p) => p.networkFeeUsd], ['network_fee_bps', (p) => p.networkFeeBps],
  ['received_amount', (p) => p.receivedAmount.toString()], ['received_usd', (p) => p.receivedUsd],
  ['settings', (p) => JSON.stringify(p.settings)], ['allowed_tokens', (p) => (p.allowedTokens ? `{${p.allowedTokens.join(',')}}` : null)],
  ['description', (p) => p.description], ['metadata', (p) => (p.metadata === null ? null : JSON.stringify(p.metadata))],
  ['customer_email', (p) => p.customerEmail], ['success_url', (p) => p.successUrl], ['cancel_url', (p) => p.cancelUrl],
  ['webhook_url', (p) => p.webhookUrl], ['checkout_token', (p) => p.checkoutToken], ['price_amount', (p) => p.priceAmount],
  ['price_currency', (p) => p.priceCurrency], ['price_rate', (p) => p.priceRate],
  ['expires_at', (p) => p.expiresAt.toISOString()], ['created_at', (p) => p.createdAt.toISOString()], ['updated_at', (p) => p.updatedAt.toISOString()],
];
/** Casts for columns a bare text parameter does not convert to by itself on both engines. */
const CASTS: Record<string, string> = { settings: '::jsonb', metadata: '::jsonb', allowed_tokens: '::text[]', livemode: '::boolean' };

const n = PAYMENT_COLUMNS.length;
const param = (i: number) => `$${n + i}`;
const STATEMENT = `
  with p as (
    insert into payments (${PAYMENT_COLUMNS.map(([c]) => c).join(', ')})
    values (${PAYMENT_COLUMNS.map(([c], i) => `$${i + 1}${CASTS[c] ?? ''}`).join(', ')})
    on conflict do nothing returning id
  ),
  a as (
    insert into audit_entries (id, merchant_id, at, action, actor, subject, payment_id, before, after, note)
    select ${param(1)}::text, ${param(2)}::text, ${param(3)}::timestamptz, ${param(4)}::text, ${param(5)}::jsonb, ${param(6)}::text, ${param(6)}::text, null::jsonb, ${param(7)}::jsonb, null::text from p
  ),
  e as (
    insert into events (id, type, merchant_id, payment_id, livemode, data, created_at)
    select v.* from (values
      (${param(8)}::text, '${AUDIT_EVENT}', ${param(2)}::text, null::text, false, ${param(9)}::jsonb, ${param(3)}::timestamptz),
      (${param(10)}::text, '${SOCKET_EVENTS.created}', ${param(2)}::text, ${param(6)}::text, ${param(11)}::boolean, ${param(12)}::jsonb, ${param(3)}::timestamptz)
    ) as v(id, type, merchant_id, payment_id, livemode, data, created_at)
    where exists (select 1 from p)
  ),
  t as (
    insert into timers (kind, key, run_at, payload) select '${DEADLINE_TIMER}', ${param(6)}::text, ${param(13)}::timestamptz, '{}'::jsonb from p
    on conflict (kind, key) do update set run_at = excluded.run_at, payload = excluded.payload, attempts = 0, last_error = null
  )
  select id from p`;

/** Named, so each pooled connection parses and plans the statement once and then only binds values. */
const PREPARED_NAME = 'payments_create_v1';

async function run(db: Database, text: string, params: unknown[]): Promise<unknown[]> {
  if (db.pool) return (await db.pool.query({ name: PREPARED_NAME, text, values: params })).rows;
  return (await db.pglite!.query(text, params)).rows;
}

/** Inserts the payment and everything that goes with its creation; false when its order is already open. */
export async function insertCreatedPayment(db: Database, p: PaymentRow, actor: Actor, now: Date): Promise<boolean> {
  const audit = {
    id: newId('aud', now), merchantId: p.merchantId, at: now, action: CREATED_ACTION,
    actor: { ...actor, merchant_id: actor.merchant_id ?? p.merchantId } as Record<string, unknown>,
    subject: p.id, paymentId: p.id, before: null, after: scrub(createdAuditAfter(p)), note: null,
  };
  const params = [
    ...PAYMENT_COLUMNS.map(([, value]) => value(p)),
    audit.id, p.merchantId, now.toISOString(), CREATED_ACTION, JSON.stringify(audit.actor), p.id, JSON.stringify(audit.after),
    newEventId(now), JSON.stringify(auditEntryJson(audit)),
    newEventId(now), p.livemode, JSON.stringify(paymentEventData(p, [])),
    p.expiresAt.toISOString(),
  ];
  return (await run(db, STATEMENT, params)).length === 1;
}
