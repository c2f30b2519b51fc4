// New payments written in ONE statement each time: the payment rows (a repeated order_id is refused
// by the open-order index), each one's `payment.created` audit entry with the entry's `audit:entry`
// event, the socket event `payment.created` and the deadline timer, chained by CTEs on the rows
// actually inserted. One statement is one atomic change and a single round trip.
//
// The creations that arrive together go in one statement (group write): a group of
// REQUEST_GROUP_SEND_AT as soon as it is full, what is left at the end of the event-loop turn then.
// Under load a dozen creations cost one round trip, one plan and one commit instead of twelve. The
// rows travel as JSON arrays, so the statement text is the same whatever the batch size and each
// pooled connection prepares it once. The audit row is recordAudit's own (auditRow); the event,
// queue and timer rows mirror what appendEvent and scheduleTimer write (same tables, same shapes);
// create.ts uses those helpers directly when a simulation starts with the payment.
import type { Database } from '../platform/db/index.ts';
import { GroupedStatements, REQUEST_GROUP_SEND_AT, requestGroupsInFlight } from '../platform/grouped-statements.ts';
import { newEventId } from '../platform/ids.ts';
import { QUEUE_INSERTED_EVENTS } from '../events/index.ts';
import { AUDIT_EVENT, auditEntryJson, auditRow, type Actor } from '../audit/index.ts';
import type { PaymentRow } from './schema.ts';
import { SOCKET_EVENTS } from './payment-events.ts';
import { DEADLINE_TIMER } from './deadlines.ts';
import { createdAuditInput } from './create-audit.ts';
import { OPEN_STATUSES } from './status.ts';

/**
 * A payment as the JSON object jsonb_populate_recordset reads (it types each value by its column).
 * One object literal: every row gets the same shape, built and serialised on V8's fast paths.
 * Filling an object column by column from a table of names took half of this file's CPU time.
 */
function paymentColumns(p: PaymentRow) {
  return {
    id: p.id, merchant_id: p.merchantId, store_id: p.storeId, livemode: p.livemode,
    order_id: p.orderId, status: p.status, token: p.token, chain: p.chain,
    deposit_address: p.depositAddress, address_index: p.addressIndex, destination_tag: p.destinationTag,
    usd_amount: p.usdAmount, amount_due_usd: p.amountDueUsd, extra_usd: p.extraUsd,
    crypto_amount: p.cryptoAmount?.toString() ?? null, rate_locked: p.rateLocked,
    network_fee: p.networkFee?.toString() ?? null, network_fee_usd: p.networkFeeUsd, network_fee_bps: p.networkFeeBps,
    received_amount: p.receivedAmount.toString(), received_usd: p.receivedUsd,
    settings: p.settings, allowed_tokens: p.allowedTokens,
    description: p.description, metadata: p.metadata,
    customer_email: p.customerEmail, success_url: p.successUrl, cancel_url: p.cancelUrl,
    webhook_url: p.webhookUrl, checkout_token: p.checkoutToken, price_amount: p.priceAmount,
    price_currency: p.priceCurrency, price_rate: p.priceRate,
    expires_at: p.expiresAt.toISOString(), created_at: p.createdAt.toISOString(), updated_at: p.updatedAt.toISOString(),
  };
}

/**
 * The columns the statement inserts: paymentColumns' own keys, read off a row built from a blank
 * payment (only the fields it calls methods on are set), so the list is never written twice.
 */
const BLANK = { receivedAmount: 0n, expiresAt: new Date(0), createdAt: new Date(0), updatedAt: new Date(0) } as PaymentRow;
const COLUMN_LIST = Object.keys(paymentColumns(BLANK)).join(', ');

/**
 * The open-order index (payments_open_order, migrations/0200_payments.sql) is the one conflict a
 * creation expects: naming it spares the database probing the other unique indexes (the id and the
 * checkout token are random, 128 bits and more) on every row, about 4% of the statement's time.
 */
const OPEN_ORDER_CONFLICT = `(merchant_id, livemode, (coalesce(store_id, '')), order_id) where status in (${OPEN_STATUSES.map((s) => `'${s}'`).join(', ')})`;

// $1 payments, $2 audit entries, $3 events (`of` names the payment they belong to, `ord` keeps their
// order in the outbox), $4 deadline timers: each a JSON array.
const STATEMENT = `
  with p as (
    insert into payments (${COLUMN_LIST})
    select ${COLUMN_LIST} from jsonb_populate_recordset(null::payments, $1::jsonb)
    on conflict ${OPEN_ORDER_CONFLICT} do nothing
    returning id
  ),
  a as (
    insert into audit_entries (id, merchant_id, at, action, actor, subject, payment_id, before, after, note)
    select x.id, x.merchant_id, x.at, x.action, x.actor, x.subject, x.payment_id, x.before, x.after, x.note
    from jsonb_populate_recordset(null::audit_entries, $2::jsonb) x where x.payment_id in (select id from p)
  ),
  e as (
    insert into events (id, type, merchant_id, payment_id, livemode, data, created_at)
    select x.id, x.type, x.merchant_id, x.payment_id, x.livemode, x.data, x.created_at
    from jsonb_to_recordset($3::jsonb) as x(ord integer, "of" text, id text, type text, merchant_id text, payment_id text, livemode boolean, data jsonb, created_at timestamptz)
    where x."of" in (select id from p) order by x.ord
    returning seq
  ),
  q as (${QUEUE_INSERTED_EVENTS}),
  t as (
    insert into timers (kind, key, run_at, payload)
    select '${DEADLINE_TIMER}', x.key, x.run_at, '{}'::jsonb
    from jsonb_to_recordset($4::jsonb) as x(key text, run_at timestamptz) where x.key in (select id from p)
    on conflict (kind, key) do update set run_at = excluded.run_at, payload = excluded.payload, attempts = 0, last_error = null
  )
  select id from p`;

/** Named, so each pooled connection parses and plans the statement once and then only binds values. */
const PREPARED_NAME = 'payments_create_v3';

/** One creation to write: the row, who created it, and the data of its `payment.created` event. */
export interface CreatedPayment {
  payment: PaymentRow;
  actor: Actor;
  eventData: Record<string, unknown>;
  now: Date;
}

/** The creations that arrive together, grouped (platform/grouped-statements.ts) into this file's one statement. */
export class CreatedPaymentWriter {
  readonly #db: Database;
  readonly #groups: GroupedStatements<CreatedPayment, boolean>;
  /** Statements sent so far (each carries one or more creations). */
  statements = 0;

  constructor(db: Database) {
    this.#db = db;
    this.#groups = new GroupedStatements(async (items) => {
      const inserted = await this.#run(items);
      return items.map((i) => inserted.has(i.payment.id));
    }, {
      // Half the pool at most, so it keeps connections for everything else; PGlite runs one
      // statement at a time: a second in flight would only wait.
      maxInFlight: db.pool ? requestGroupsInFlight(db.pool.options.max ?? 10) : 1,
      sendAt: REQUEST_GROUP_SEND_AT,
    });
  }

  /** Most statements that were in flight at once. */
  get peakInFlight(): number {
    return this.#groups.peakInFlight;
  }

  /** Writes the payment and everything that goes with its creation; false when its order is already open. */
  write(item: CreatedPayment): Promise<boolean> {
    return this.#groups.write(item);
  }

  async #run(items: readonly CreatedPayment[]): Promise<Set<string>> {
    // A steady order of the rows makes two batches that both repeat orders wait on each other in the same order.
    const sorted = items.length > 1 ? [...items].sort((x, y) => (x.payment.orderId < y.payment.orderId ? -1 : x.payment.orderId > y.payment.orderId ? 1 : 0)) : items;
    const payments: Record<string, unknown>[] = [];
    const audits: Record<string, unknown>[] = [];
    const events: Record<string, unknown>[] = [];
    const timers: Record<string, unknown>[] = [];
    for (const { payment: p, actor, eventData, now } of sorted) {
      payments.push(paymentColumns(p));
      const audit = auditRow(createdAuditInput(p, actor, now));
      const at = now.toISOString();
      audits.push({
        id: audit.id, merchant_id: audit.merchantId, at, action: audit.action, actor: audit.actor, subject: audit.subject,
        payment_id: audit.paymentId, before: audit.before, after: audit.after, note: audit.note,
      });
      events.push(
        { ord: events.length, of: p.id, id: newEventId(now), type: AUDIT_EVENT, merchant_id: p.merchantId, payment_id: null, livemode: false, data: auditEntryJson(audit), created_at: at },
        { ord: events.length + 1, of: p.id, id: newEventId(now), type: SOCKET_EVENTS.created, merchant_id: p.merchantId, payment_id: p.id, livemode: p.livemode, data: eventData, created_at: at },
      );
      timers.push({ key: p.id, run_at: p.expiresAt.toISOString() });
    }
    this.statements++;
    const params = [JSON.stringify(payments), JSON.stringify(audits), JSON.stringify(events), JSON.stringify(timers)];
    const rows = this.#db.pool
      ? (await this.#db.pool.query<{ id: string }>({ name: PREPARED_NAME, text: STATEMENT, values: params })).rows
      : (await this.#db.pglite!.query<{ id: string }>(STATEMENT, params)).rows;
    return new Set(rows.map((r) => r.id));
  }
}
