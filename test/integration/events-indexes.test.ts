// The indexes of the events table (migrations/0620_events_indexes.sql): a payment's timeline is
// read through events_by_payment, which holds only events of a payment; nothing else indexes them
// by merchant. Each index of events is written on every payment creation and webhook attempt.
import { expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/platform/db/index.ts';
import { appendEvent } from '../../src/events/index.ts';
import { describeEachDb } from '../harness/databases.ts';

describeEachDb('events indexes', (h) => {
  it('indexes events of a payment only, and none by merchant', async () => {
    const rows = await queryRows<{ indexname: string; indexdef: string }>(h.db().orm,
      sql`select indexname, indexdef from pg_indexes where tablename = 'events' order by indexname`);
    const names = rows.map((r) => r.indexname);
    expect(names).not.toContain('events_by_merchant');
    const byPayment = rows.find((r) => r.indexname === 'events_by_payment');
    expect(byPayment?.indexdef).toMatch(/\(payment_id, seq\) WHERE \(payment_id IS NOT NULL\)$/);
  });

  it("reads a payment's events through events_by_payment, in order", async () => {
    const db = h.db();
    const at = new Date('2026-11-26T05:00:00Z');
    await db.transaction(async (tx) => {
      for (let i = 0; i < 30; i++) {
        await appendEvent(tx, { type: 'payment.created', livemode: false, merchantId: 'mer_x', paymentId: `pay_${i % 3}`, data: { i }, at });
        await appendEvent(tx, { type: 'audit:entry', livemode: false, merchantId: 'mer_x', paymentId: null, data: { i }, at });
      }
    });
    const seqs = await queryRows<{ seq: string | number; data: { i: number } }>(db.orm,
      sql`select seq, data from events where payment_id = 'pay_1' order by seq`);
    expect(seqs.map((r) => r.data.i)).toEqual([1, 4, 7, 10, 13, 16, 19, 22, 25, 28]);
    // The planner may prefer a scan on a table this small; with scans off it must find the index usable.
    const plan = await db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const rows = await queryRows<Record<string, string>>(tx, sql`explain select seq from events where payment_id = 'pay_1' order by seq`);
      return rows.map((r) => Object.values(r)[0]).join('\n');
    });
    expect(plan).toContain('events_by_payment');
  });
});
