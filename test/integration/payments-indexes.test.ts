// The indexes behind the payments' order_id filter, dashboard figures and the
// chain watcher's address index (migrations/1200..): each is checked to exist with the columns,
// included columns and predicate its query needs. Whether the planner picks it is measured on a
// large table (the migrations' comments give the EXPLAIN figures); on these small test tables it
// would not, so a plan is read with sequential scans turned off, which shows the index can serve it.
import { expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/platform/db/index.ts';
import { describeEachDb } from '../harness/databases.ts';

describeEachDb('payments indexes', (h) => {
  /** The plan of `query` with sequential scans off (inside a transaction, so the setting ends with it). */
  async function planOf(query: string): Promise<string> {
    return h.db().transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const rows = await queryRows<{ 'QUERY PLAN': string }>(tx, sql.raw(`explain ${query}`));
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  }

  async function indexDef(name: string): Promise<string | undefined> {
    const rows = await queryRows<{ indexdef: string }>(h.db().orm, sql`select indexdef from pg_indexes where tablename = 'payments' and indexname = ${name}`);
    return rows[0]?.indexdef;
  }

  it('indexes payments by merchant and order id, in any status (the order_id filter)', async () => {
    expect(await indexDef('payments_by_order')).toMatch(/\(merchant_id, order_id\)$/);
  });

  it("indexes a chain's live deposit addresses by payment id (the watcher's address index pages)", async () => {
    expect(await indexDef('payments_live_by_id')).toMatch(/\(chain, id\) INCLUDE \(deposit_address, destination_tag\) WHERE \(livemode AND \(deposit_address <> ''::text\)\)$/);
  });

  it('indexes confirmed payments by merchant, mode and confirmation time (the dashboard figures and chart)', async () => {
    expect(await indexDef('payments_confirmed')).toMatch(/\(merchant_id, livemode, confirmed_at\) INCLUDE \(chain, usd_amount\) WHERE \(status = 'confirmed'::text\)$/);
  });

  it('indexes expired payments by merchant, mode and closing time (the dashboard figures\' expired_today)', async () => {
    expect(await indexDef('payments_expired')).toMatch(/\(merchant_id, livemode, closed_at\) WHERE \(status = 'expired'::text\)$/);
    const plan = await planOf(`select count(*) from payments where merchant_id = 'mer_x' and livemode and status = 'expired' and closed_at >= now()`);
    expect(plan).toContain('payments_expired');
  });
});
