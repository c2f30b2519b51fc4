// A payment paid in parts is settled once per coin, and the settlement's `deposit_tx` is the
// "first deposit when several" (spec 2 Settlement object), `deposit_txs` listing them in the order
// they arrived. The deposits are read in the order they were seen, never in the table's storage
// order: an update (a deposit becoming final) moves a row to the end of PostgreSQL's heap, which
// put the second deposit first (seen on litecoind: two deposits, the first mined and final first).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount } from '../harness/accounts.ts';
import { createPayment } from '../harness/payments.ts';
import { deposits, payments, settleInputOf } from '../../src/payments/index.ts';
import { settlementJson } from '../../src/settlement/index.ts';

describeEachDb('a settled payment\'s deposits in the order they arrived', (h) => {
  let t: TestApp;
  beforeAll(async () => { t = await startTestApp(h.db()); });
  afterAll(async () => { await t.close(); });

  it('deposit_tx is the first deposit and deposit_txs follow arrival, whatever the rows\' storage order', async () => {
    const acct = await signupAccount(t.app);
    const p = await createPayment(t.app, acct.testKey, { token: 'ETH', amount_usd: '20' });
    const orm = h.db().orm;
    const seen = new Date(Date.now() - 60_000);
    const row = (id: string, txId: string, at: Date, status: string) => ({
      id, paymentId: p.id, txId, token: 'ETH', amount: 3_000_000_000_000_000n, usdValue: '10', counted: true,
      confirmations: status === 'final' ? 3 : 1, confirmationsRequired: 3, status, simulated: false, late: false,
      seenAt: at, ...(status === 'final' ? { finalAt: at } : {}),
    });
    // the first deposit (seen first) is still confirming when the second arrives, already final
    await orm.insert(deposits).values(row(`dep_${p.id}_1`, '0xfff1first', seen, 'pending'));
    await orm.insert(deposits).values(row(`dep_${p.id}_2`, '0x0002second', new Date(seen.getTime() + 1000), 'final'));
    // then the first becomes final: its row is written anew, after the second's
    await orm.update(deposits).set({ status: 'final', confirmations: 3, finalAt: new Date() }).where(eq(deposits.id, `dep_${p.id}_1`));
    await orm.update(payments).set({ status: 'confirmed' }).where(eq(payments.id, p.id));

    const input = await settleInputOf(orm, p.id);
    expect(input!.deposits.map((d) => d.tx_id)).toEqual(['0xfff1first', '0x0002second']);
    const [s] = await t.services.settlement.settle(h.db(), input!);
    expect(settlementJson(s)).toMatchObject({ deposit_tx: '0xfff1first', deposit_txs: ['0xfff1first', '0x0002second'] });
  });
});
