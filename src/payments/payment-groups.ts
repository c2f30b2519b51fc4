// Payments counted under a group: a payment link (metadata.link_id) or a customer (customer_email).
// Kept from the outbox, never from the request that creates a payment: POST /v1/payments stays one
// statement, and the counting runs in the dispatch transaction of its `payment.created` and
// `payment.confirmed` events. One subscriber reads the batch's payments once (only those that can
// belong to a group) and hands them to each room's feed; the feed names the groups, this file
// records the payments in them exactly once (migrations/0760_payment_groups.sql) and tells the feed
// what changed, so a batch handed over twice counts nothing twice.
import { sql } from 'drizzle-orm';
import { pgTable, numeric, primaryKey, text } from 'drizzle-orm/pg-core';
import { at, queryRows, type Executor, type Tx } from '../platform/db/index.ts';
import type { Subscriber } from '../events/index.ts';
import { dec, type Decimal } from '../money/index.ts';
import { PAYMENT_EVENTS } from './status.ts';
import { SOCKET_EVENTS } from './payment-events.ts';

export const groupedPayments = pgTable('grouped_payments', {
  groupId: text('group_id').notNull(),
  paymentId: text('payment_id').notNull(),
  usdAmount: numeric('usd_amount').notNull(),
  createdAt: at('created_at').notNull(),
  confirmedAt: at('confirmed_at'),
}, (t) => [primaryKey({ columns: [t.groupId, t.paymentId] })]);

/** What a feed learns of a payment of the batch, as it is now. */
export interface GroupablePayment {
  id: string;
  merchantId: string;
  livemode: boolean;
  orderId: string;
  usdAmount: string;
  createdAt: Date;
  /** Set once the payment is confirmed. */
  confirmedAt: Date | null;
  customerEmail: string | null;
  linkId: string | null;
}

/** A payment placed in a group by a feed. */
export interface GroupMember {
  groupId: string;
  payment: GroupablePayment;
}

/** What one batch changed in a group: payments added (with their creation times) and volume confirmed. */
export interface GroupChange {
  groupId: string;
  added: number;
  confirmedUsd: Decimal;
  firstAt: Date | null;
  lastAt: Date | null;
}

export interface GroupFeed {
  name: string;
  /** The groups these payments belong to (a feed may create its group rows here). */
  membersOf(tx: Tx, payments: readonly GroupablePayment[], now: Date): Promise<GroupMember[]>;
  /** Applies the changes to the feed's own rows, with their events. */
  apply(tx: Tx, changes: readonly GroupChange[], now: Date): Promise<void>;
}

/** The events after which a payment may join a group or add to its confirmed volume. */
const GROUP_EVENTS: ReadonlySet<string> = new Set([SOCKET_EVENTS.created, PAYMENT_EVENTS.confirmed]);

interface FactRow {
  id: string; merchant_id: string; livemode: boolean; order_id: string; usd_amount: string | number;
  created_at: Date | string; confirmed_at: Date | string | null; status: string; customer_email: string | null; link_id: string | null;
}

const asDate = (v: Date | string): Date => (v instanceof Date ? v : new Date(v));

/** The batch's payments that can belong to a group, in one read (nothing when none can). */
async function readGroupable(tx: Tx, ids: readonly string[]): Promise<GroupablePayment[]> {
  const rows = await queryRows<FactRow>(tx, sql`
    select id, merchant_id, livemode, order_id, usd_amount, created_at, confirmed_at, status, customer_email,
      metadata->>'link_id' as link_id
    from payments
    where id = any(string_to_array(${ids.join(',')}, ','))
      and (customer_email is not null or metadata->>'link_id' is not null)`);
  return rows.map((r) => ({
    id: r.id, merchantId: r.merchant_id, livemode: r.livemode, orderId: r.order_id, usdAmount: String(r.usd_amount),
    createdAt: asDate(r.created_at),
    confirmedAt: r.status === 'confirmed' ? asDate(r.confirmed_at ?? r.created_at) : null,
    customerEmail: r.customer_email, linkId: r.link_id,
  }));
}

function changeOf(changes: Map<string, GroupChange>, groupId: string): GroupChange {
  let c = changes.get(groupId);
  if (!c) {
    c = { groupId, added: 0, confirmedUsd: dec(0), firstAt: null, lastAt: null };
    changes.set(groupId, c);
  }
  return c;
}

/**
 * Records members in their groups: a payment is added once (primary key) and its amount confirmed
 * once (`confirmed_at is null`). Returns only what this call changed.
 */
export async function recordMembers(tx: Tx, members: readonly GroupMember[]): Promise<GroupChange[]> {
  const changes = new Map<string, GroupChange>();
  if (members.length === 0) return [];
  const rows = JSON.stringify(members.map((m) => ({
    group_id: m.groupId, payment_id: m.payment.id, usd_amount: m.payment.usdAmount, created_at: m.payment.createdAt.toISOString(),
  })));
  const added = await queryRows<{ group_id: string; created_at: Date | string }>(tx, sql`
    insert into grouped_payments (group_id, payment_id, usd_amount, created_at)
    select v.group_id, v.payment_id, v.usd_amount, v.created_at
    from jsonb_to_recordset(${rows}::jsonb) as v(group_id text, payment_id text, usd_amount numeric, created_at timestamptz)
    on conflict (group_id, payment_id) do nothing
    returning group_id, created_at`);
  for (const r of added) {
    const c = changeOf(changes, r.group_id);
    const t = asDate(r.created_at);
    c.added += 1;
    if (!c.firstAt || t < c.firstAt) c.firstAt = t;
    if (!c.lastAt || t > c.lastAt) c.lastAt = t;
  }
  const confirmed = members.filter((m) => m.payment.confirmedAt !== null);
  if (confirmed.length > 0) {
    const keys = JSON.stringify(confirmed.map((m) => ({ group_id: m.groupId, payment_id: m.payment.id, confirmed_at: m.payment.confirmedAt!.toISOString() })));
    const done = await queryRows<{ group_id: string; usd_amount: string | number }>(tx, sql`
      update grouped_payments g set confirmed_at = v.confirmed_at
      from jsonb_to_recordset(${keys}::jsonb) as v(group_id text, payment_id text, confirmed_at timestamptz)
      where g.group_id = v.group_id and g.payment_id = v.payment_id and g.confirmed_at is null
      returning g.group_id, g.usd_amount`);
    for (const r of done) {
      const c = changeOf(changes, r.group_id);
      c.confirmedUsd = c.confirmedUsd.plus(dec(String(r.usd_amount)));
    }
  }
  return [...changes.values()];
}

/**
 * The changes as one JSON parameter for `jsonb_to_recordset(…) as v(group_id text, added integer,
 * confirmed_usd numeric, first_at timestamptz, last_at timestamptz)`: a feed applies a whole batch's
 * changes in one statement.
 */
export const GROUP_CHANGE_COLUMNS = 'group_id text, added integer, confirmed_usd numeric, first_at timestamptz, last_at timestamptz';
export const changesJson = (changes: readonly GroupChange[]): string => JSON.stringify(changes.map((c) => ({
  group_id: c.groupId, added: c.added, confirmed_usd: c.confirmedUsd.toFixed(),
  first_at: c.firstAt?.toISOString() ?? null, last_at: c.lastAt?.toISOString() ?? null,
})));

/** The payment ids of a group, newest first (a customer's recent payments). */
export async function recentGroupPayments(ex: Executor, groupId: string, limit: number): Promise<string[]> {
  const rows = await queryRows<{ payment_id: string }>(ex, sql`
    select payment_id from grouped_payments where group_id = ${groupId} order by created_at desc, payment_id desc limit ${limit}`);
  return rows.map((r) => r.payment_id);
}

/** The one outbox subscriber of every feed (links, customers): one read of the batch's payments. */
export class PaymentGroups {
  readonly #feeds: GroupFeed[] = [];
  readonly #now: () => Date;

  constructor(now: () => Date) {
    this.#now = now;
  }

  addFeed(feed: GroupFeed): void {
    this.#feeds.push(feed);
  }

  readonly subscriber: Subscriber = {
    name: 'payment-groups',
    // The payment row is the truth (its status now, its email, its link): event data is never read.
    wants: () => false,
    handle: async (tx, batch) => {
      if (this.#feeds.length === 0) return;
      const ids = [...new Set(batch.filter((e) => GROUP_EVENTS.has(e.type) && e.paymentId).map((e) => e.paymentId!))];
      if (ids.length === 0) return;
      const payments = await readGroupable(tx, ids);
      if (payments.length === 0) return;
      const now = this.#now();
      for (const feed of this.#feeds) {
        const changes = await recordMembers(tx, await feed.membersOf(tx, payments, now));
        if (changes.length > 0) await feed.apply(tx, changes, now);
      }
    },
  };
}
