// GET /admin/unmatched-deposits (CONTRACT.md operator API): transfers no payment took, newest first,
// `?chain=` for one chain; `merchant_id` only when the address was a payment's, `destination_tag`
// only for XRP, and no `usd_value` (never null) for one seen while its coin had no current price.
// The rows are written as the chain watcher writes them (deposit-feed.ts); the nodes are not needed.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { unmatchedDeposits } from '../../src/chains/watch/schema.ts';

const ADMIN = { authorization: 'Bearer test-admin-token' };

describeEachDb('operator: unmatched deposits', (h) => {
  let t: TestApp;
  let acct: Account;
  beforeAll(async () => { t = await startTestApp(h.db()); acct = await signupAccount(t.app); });
  afterAll(async () => { await t.close(); });

  const list = async (query = '') => {
    const res = await t.app.inject({ method: 'GET', url: `/admin/unmatched-deposits${query}`, headers: ADMIN });
    expect(res.statusCode).toBe(200);
    return res.json().deposits as Record<string, unknown>[];
  };

  it('lists newest first, one chain with ?chain=, optional fields absent and never null', async () => {
    const at = (s: string) => new Date(`2026-04-0${s}T10:00:00.000Z`);
    await h.db().orm.insert(unmatchedDeposits).values([
      { id: 'umd_probe_1', chain: 'ethereum', token: 'ETH', address: '0x00000000000000000000000000000000000000a1', txId: '0xaa', amount: 1_500_000_000_000_000_000n, usdValue: '4500', block: 10, merchantId: acct.merchant.id, paymentId: null, seenAt: at('1') },
      { id: 'umd_probe_2', chain: 'xrp', token: 'XRP', address: 'rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe', destinationTag: 9, txId: 'BB', amount: 2_000_000n, usdValue: null, block: 20, seenAt: at('3') },
      { id: 'umd_probe_3', chain: 'ethereum', token: 'ETH', address: '0x00000000000000000000000000000000000000a2', txId: '0xcc', amount: 1n, usdValue: '0', block: 11, seenAt: at('2') },
    ]);
    const all = await list();
    expect(all.map((d) => d.id)).toEqual(['umd_probe_2', 'umd_probe_3', 'umd_probe_1']);
    expect(all[0]).toEqual({
      id: 'umd_probe_2', chain: 'xrp', token: 'XRP', address: 'rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe', destination_tag: 9, tx_id: 'BB', amount: '2', block: 20, seen_at: at('3').toISOString(),
    });
    expect(all[2]).toEqual({
      id: 'umd_probe_1', merchant_id: acct.merchant.id, chain: 'ethereum', token: 'ETH', address: '0x00000000000000000000000000000000000000a1', tx_id: '0xaa', amount: '1.5', usd_value: '4500', block: 10, seen_at: at('1').toISOString(),
    });
    expect((await list('?chain=ethereum')).map((d) => d.id)).toEqual(['umd_probe_3', 'umd_probe_1']);
    expect(await list('?chain=bitcoin')).toEqual([]);
  });
});
