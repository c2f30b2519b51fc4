// Customers made from payments (CONTRACT.md "Customers"): the payments room's group feed. A
// payment with a customer_email joins the customer of its merchant, mode and email (made here when
// there is none yet); the customer's counts move with what the payment groups recorded, and each
// change raises `customer:update`. Runs in the outbox's dispatch transaction, in a fixed number of
// statements per batch whatever its size. `updated_at` stays the time of the last change by hand:
// counts are not edits.
import { inArray, sql } from 'drizzle-orm';
import { queryRows } from '../platform/db/index.ts';
import { newId } from '../platform/ids.ts';
import { appendEvents } from '../events/index.ts';
import { changesJson, GROUP_CHANGE_COLUMNS, type GroupFeed, type GroupMember } from '../payments/index.ts';
import { customers } from './schema.ts';
import { customerUpdateEvent } from './json.ts';

const keyOf = (merchantId: string, livemode: boolean, email: string) => `${merchantId}|${livemode}|${email}`;
const emailKey = (email: string) => email.trim().toLowerCase();

export const customerFeed: GroupFeed = {
  name: 'customers',

  async membersOf(tx, payments, now) {
    const withEmail = payments.filter((p) => p.customerEmail !== null && p.customerEmail.trim() !== '');
    if (withEmail.length === 0) return [];
    const wanted = new Map<string, { id: string; merchant_id: string; livemode: boolean; email: string }>();
    for (const p of withEmail) {
      const email = emailKey(p.customerEmail!);
      wanted.set(keyOf(p.merchantId, p.livemode, email), { id: newId('cus', now), merchant_id: p.merchantId, livemode: p.livemode, email });
    }
    // One statement: the customers that exist, and those made now (a statement does not see its own
    // inserts, so they come from `returning`).
    const rows = await queryRows<{ id: string; merchant_id: string; livemode: boolean; email: string }>(tx, sql`
      with v as (
        select * from jsonb_to_recordset(${JSON.stringify([...wanted.values()])}::jsonb) as v(id text, merchant_id text, livemode boolean, email text)
      ),
      made as (
        insert into customers (id, merchant_id, livemode, email, created_at, updated_at)
        select v.id, v.merchant_id, v.livemode, v.email, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz from v
        on conflict do nothing
        returning id, merchant_id, livemode, email
      )
      select id, merchant_id, livemode, email from made
      union all
      select c.id, c.merchant_id, c.livemode, v.email from v
      join customers c on c.merchant_id = v.merchant_id and c.livemode = v.livemode and lower(c.email) = lower(v.email)`);
    const ids = new Map(rows.map((r) => [keyOf(r.merchant_id, r.livemode, r.email), r.id]));
    // A customer made by hand and committed while that statement ran is in neither half: read again.
    const missing = [...wanted].filter(([k]) => !ids.has(k)).map(([, v]) => v);
    if (missing.length > 0) {
      for (const r of await queryRows<{ id: string; merchant_id: string; livemode: boolean; email: string }>(tx, sql`
        select c.id, c.merchant_id, c.livemode, v.email from jsonb_to_recordset(${JSON.stringify(missing)}::jsonb) as v(merchant_id text, livemode boolean, email text)
        join customers c on c.merchant_id = v.merchant_id and c.livemode = v.livemode and lower(c.email) = lower(v.email)`)) {
        ids.set(keyOf(r.merchant_id, r.livemode, r.email), r.id);
      }
    }
    const members: GroupMember[] = [];
    for (const p of withEmail) {
      const groupId = ids.get(keyOf(p.merchantId, p.livemode, emailKey(p.customerEmail!)));
      if (groupId) members.push({ groupId, payment: p });
    }
    return members;
  },

  async apply(tx, changes, now) {
    // least() and greatest() leave NULLs out: a change without new payments keeps both times.
    const changed = await queryRows<{ id: string }>(tx, sql`
      update customers c set payments = c.payments + v.added, volume_usd = c.volume_usd + v.confirmed_usd,
        first_payment_at = least(c.first_payment_at, v.first_at), last_payment_at = greatest(c.last_payment_at, v.last_at)
      from jsonb_to_recordset(${changesJson(changes)}::jsonb) as v(${sql.raw(GROUP_CHANGE_COLUMNS)})
      where c.id = v.group_id
      returning c.id`);
    if (changed.length === 0) return;
    const rows = await tx.select().from(customers).where(inArray(customers.id, changed.map((r) => r.id)));
    await appendEvents(tx, rows.map((r) => customerUpdateEvent(r, now)));
  },
};
