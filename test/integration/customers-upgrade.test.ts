// Upgrading a database that already holds payments with customer_email (migrations/0780): their
// customers and counts are made as the outbox would have made them, and events still waiting for
// the dispatcher change nothing when they arrive.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { MIGRATIONS_DIR, migrate, openPglite, queryRows } from '../../src/platform/db/index.ts';
import { PaymentGroups } from '../../src/payments/index.ts';
import { customerFeed } from '../../src/customers/index.ts';

it('makes the customers of earlier payments, one per merchant, mode and email, with their counts', async () => {
  const before = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-migrations-'));
  for (const f of fs.readdirSync(MIGRATIONS_DIR)) if (f < '0780') fs.copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(before, f));
  const db = await openPglite(null);
  try {
    await migrate(db, before);
    await db.orm.execute(sql`insert into merchants (id, name, created_at, updated_at) values ('mer_1', 'Shop', now(), now())`);
    const pay = (id: string, email: string | null, livemode: boolean, status: string, usd: string, at: string) => sql`
      insert into payments (id, merchant_id, livemode, order_id, status, usd_amount, amount_due_usd, settings, customer_email, checkout_token, expires_at, created_at, updated_at, confirmed_at)
      values (${id}, 'mer_1', ${livemode}, ${id}, ${status}, ${usd}, ${usd}, '{}'::jsonb, ${email}, ${`ct_${id}`}, now(), ${at}::timestamptz, ${at}::timestamptz,
        ${status === 'confirmed' ? at : null}::timestamptz)`;
    await db.orm.execute(pay('pay_1', 'Ann@Shop.example', false, 'confirmed', '10.5', '2026-01-01T10:00:00Z'));
    await db.orm.execute(pay('pay_2', 'ann@shop.example ', false, 'expired', '3', '2026-01-02T10:00:00Z'));
    await db.orm.execute(pay('pay_3', 'ann@shop.example', true, 'confirmed', '7', '2026-01-03T10:00:00Z'));
    await db.orm.execute(pay('pay_4', null, false, 'confirmed', '99', '2026-01-04T10:00:00Z'));
    expect(await migrate(db)).toContain('0780_customers.sql');
    const rows = await queryRows<{ email: string; livemode: boolean; payments: string | number; volume_usd: string; first_payment_at: Date | string; last_payment_at: Date | string }>(db.orm, sql`
      select email, livemode, payments, volume_usd::text as volume_usd, first_payment_at, last_payment_at from customers order by livemode`);
    expect(rows.map((r) => ({ ...r, payments: Number(r.payments), volume_usd: Number(r.volume_usd), first_payment_at: new Date(r.first_payment_at).toISOString(), last_payment_at: new Date(r.last_payment_at).toISOString() }))).toEqual([
      { email: 'ann@shop.example', livemode: false, payments: 2, volume_usd: 10.5, first_payment_at: '2026-01-01T10:00:00.000Z', last_payment_at: '2026-01-02T10:00:00.000Z' },
      { email: 'ann@shop.example', livemode: true, payments: 1, volume_usd: 7, first_payment_at: '2026-01-03T10:00:00.000Z', last_payment_at: '2026-01-03T10:00:00.000Z' },
    ]);
    // The events of those payments, handed over after the upgrade, count nothing again.
    const groups = new PaymentGroups(() => new Date());
    groups.addFeed(customerFeed);
    const batch = ['pay_1', 'pay_2', 'pay_3'].map((id, i) => ({
      seq: i + 1, id: `ev_${id}`, type: i === 0 ? 'payment.confirmed' : 'payment.created', merchantId: 'mer_1', paymentId: id, livemode: false, data: undefined, webhookUrl: null, createdAt: new Date(),
    }));
    await db.transaction((tx) => groups.subscriber.handle(tx, batch));
    const after = await queryRows<{ n: number; total: string }>(db.orm, sql`select count(*)::int as n, sum(payments)::text as total from customers`);
    expect(after[0]).toEqual({ n: 2, total: '3' });
  } finally {
    await db.close();
    fs.rmSync(before, { recursive: true, force: true });
  }
});
