// Customers made from payments (CONTRACT.md "Customers"): the payments room's group feed. A
// payment with a customer_email joins the customer of its merchant, mode and email (made here when
// there is none yet); the customer's counts move with what the payment groups recorded, and each
// change raises `customer:update`. Runs in the outbox's dispatch transaction. `updated_at` stays
// the time of the last change by hand: counts are not edits.
import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../platform/db/index.ts';
import { newId } from '../platform/ids.ts';
import type { GroupChange, GroupFeed, GroupMember, GroupablePayment } from '../payments/index.ts';
import { customers, type CustomerRow } from './schema.ts';
import { emitCustomerUpdate } from './json.ts';

const keyOf = (merchantId: string, livemode: boolean, email: string) => `${merchantId}|${livemode}|${email}`;

/** The customers of these payments' emails, made when missing; a map from key to customer id. */
async function customersFor(tx: Tx, payments: readonly GroupablePayment[], now: Date): Promise<Map<string, string>> {
  const wanted = new Map<string, { merchant_id: string; livemode: boolean; email: string }>();
  for (const p of payments) {
    const email = p.customerEmail!.trim().toLowerCase();
    wanted.set(keyOf(p.merchantId, p.livemode, email), { merchant_id: p.merchantId, livemode: p.livemode, email });
  }
  const keys = [...wanted.values()];
  const json = JSON.stringify(keys.map((k) => ({ ...k, id: newId('cus', now) })));
  await tx.execute(sql`
    insert into customers (id, merchant_id, livemode, email, created_at, updated_at)
    select v.id, v.merchant_id, v.livemode, v.email, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz
    from jsonb_to_recordset(${json}::jsonb) as v(id text, merchant_id text, livemode boolean, email text)
    on conflict do nothing`);
  const rows = await queryRows<{ id: string; merchant_id: string; livemode: boolean; email: string }>(tx, sql`
    select c.id, c.merchant_id, c.livemode, v.email
    from jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) as v(merchant_id text, livemode boolean, email text)
    join customers c on c.merchant_id = v.merchant_id and c.livemode = v.livemode and lower(c.email) = lower(v.email)`);
  return new Map(rows.map((r) => [keyOf(r.merchant_id, r.livemode, r.email), r.id]));
}

export const customerFeed: GroupFeed = {
  name: 'customers',

  async membersOf(tx, payments, now) {
    const withEmail = payments.filter((p) => p.customerEmail !== null && p.customerEmail.trim() !== '');
    if (withEmail.length === 0) return [];
    const ids = await customersFor(tx, withEmail, now);
    const members: GroupMember[] = [];
    for (const p of withEmail) {
      const groupId = ids.get(keyOf(p.merchantId, p.livemode, p.customerEmail!.trim().toLowerCase()));
      if (groupId) members.push({ groupId, payment: p });
    }
    return members;
  },

  async apply(tx, changes: readonly GroupChange[], now) {
    for (const c of changes) {
      const first = c.firstAt?.toISOString() ?? null;
      const last = c.lastAt?.toISOString() ?? null;
      // least() and greatest() leave NULLs out: a change without new payments keeps both times.
      const [row] = await tx.update(customers).set({
        payments: sql`${customers.payments} + ${c.added}`,
        volumeUsd: sql`${customers.volumeUsd} + ${c.confirmedUsd.toFixed()}::numeric`,
        firstPaymentAt: sql`least(${customers.firstPaymentAt}, ${first}::timestamptz)`,
        lastPaymentAt: sql`greatest(${customers.lastPaymentAt}, ${last}::timestamptz)`,
      }).where(sql`${customers.id} = ${c.groupId}`).returning();
      if (row) await emitCustomerUpdate(tx, row as CustomerRow, now);
    }
  },
};
