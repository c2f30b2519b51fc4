// A referred merchant's direct LTC settlement on a real Litecoin node (regtest) and its affiliate's
// commission (spec 2 "Referral and commission": credited once the service's fee on the deposit is
// final). The settlement is planned with the quoted network fee; once its transaction is mined the
// real fee moves money between `network_fee` and `service_fee` (real-network-fee.ts). The commission
// is credited then, once, on the final service fee: never on the quoted one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import type { Json } from '../harness/payments.ts';
import { createLivePayment, owed, settlementsOf } from '../harness/chain-send.ts';
import { litecoindOrSkip, startLitecoind, type LitecoinNode } from '../harness/litecoind.ts';
import { driveLtc, ltcMerchant, payAndReportLtc, startLtcApp, type LtcApp } from '../harness/utxo-send.ts';
import { TEST_MARKET_FILE } from '../harness/app.ts';
import { signupAccount } from '../harness/accounts.ts';
import { codeOf, expectReferralBalancesHold } from '../harness/affiliate.ts';
import { affiliateEntries, commissions, referrals } from '../../src/affiliate/index.ts';
import { commissionUnits } from '../../src/affiliate/terms.ts';
import { dec, parseUnits } from '../../src/money/index.ts';
import { setLiveNetwork } from '../../src/chains/addresses/index.ts';

const units = (v: string) => parseUnits(v, 8)!;
const RATE_BPS = 2500;

/** A referred merchant's live LTC payment, paid and reported final; its settlement as planned (pending). */
async function referredPayment(t: LtcApp, node: LitecoinNode, usd: string) {
  const affiliate = await signupAccount(t.app);
  const m = await ltcMerchant(t, undefined, { referral_code: await codeOf(t.platform.db, affiliate.merchant.id) });
  const p = await createLivePayment(t, m, 'LTC', usd);
  await payAndReportLtc(t, node, p.deposit_address, owed(p));
  const [planned] = await settlementsOf(t, p.id);
  expect(planned).toMatchObject({ status: 'pending', mode: 'direct' });
  return { affiliate, m, p, planned };
}

async function completed(t: LtcApp, paymentId: string): Promise<Json> {
  await driveLtc(t, async () => (await settlementsOf(t, paymentId))[0]?.status === 'completed');
  return (await settlementsOf(t, paymentId))[0];
}

const commissionsOf = (t: LtcApp, paymentId: string) => t.platform.db.orm.select().from(commissions).where(eq(commissions.paymentId, paymentId));

describe.runIf(litecoindOrSkip())('commission on a direct LTC settlement (litecoind)', () => {
  let node: LitecoinNode;
  const dirs: string[] = [];
  beforeAll(async () => { node = await startLitecoind(); }, 60_000);
  afterAll(async () => {
    await node?.close();
    setLiveNetwork('litecoin', 'main');
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  describeEachDb('the real network fee differs from the quote', (h) => {
    let t: LtcApp;
    beforeAll(async () => { t = await startLtcApp(h.db(), node); });
    afterAll(async () => { await t?.close(); });

    it('is credited once, at completion, on the final service fee', async () => {
      const { affiliate, p, planned } = await referredPayment(t, node, '50');
      // planned with the quoted network fee: that service fee is not final yet
      expect(await commissionsOf(t, p.id)).toEqual([]);
      const s = await completed(t, p.id);
      // the transaction cost less than the quote: the service fee took the difference
      expect(units(s.network_fee)).toBeLessThan(units(planned.network_fee));
      expect(dec(s.service_fee_usd).gt(dec(planned.service_fee_usd))).toBe(true);
      const rows = await commissionsOf(t, p.id);
      expect(rows).toHaveLength(1);
      expect(rows[0].feeUsd.toString()).toBe(dec(s.service_fee_usd).toString());
      expect(rows[0].amount).toBe(commissionUnits(dec(s.service_fee_usd), RATE_BPS));
      expect(rows[0].createdAt.getTime()).toBe(new Date(s.completed_at).getTime());
      // told again (more passes, the transfer's outcome read again): still one, the balance credited once
      await driveLtc(t, async () => false, 3).catch(() => {});
      expect(await commissionsOf(t, p.id)).toHaveLength(1);
      const entries = await t.platform.db.orm.select().from(affiliateEntries).where(eq(affiliateEntries.affiliateId, affiliate.merchant.id));
      expect(entries.map((e) => [e.type, e.amount])).toEqual([['commission', rows[0].amount]]);
      const [ref] = await t.platform.db.orm.select().from(referrals).where(eq(referrals.affiliateId, affiliate.merchant.id));
      expect(ref).toMatchObject({ payments: 1, earned: rows[0].amount });
      await expectReferralBalancesHold(t.platform.db);
    });
  });

  describeEachDb('the real network fee takes the whole service fee', (h) => {
    let t: LtcApp;
    beforeAll(async () => {
      // LTC at $100,000: the $0.20 minimum fee is 200 base units and the $1.35 quote 1,350; the
      // transaction costs ~1,420, leaving the service's share below the dust limit (294): it goes to
      // the fee too, which becomes the service fee and the quote together (service fee 0)
      const market = JSON.parse(fs.readFileSync(TEST_MARKET_FILE, 'utf8'));
      market.rates.LTC = '100000';
      market.network_fee_usd.LTC = '1.35';
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'commission-market-'));
      dirs.push(dir);
      fs.writeFileSync(path.join(dir, 'market.json'), JSON.stringify(market));
      t = await startLtcApp(h.db(), node, { MARKET_FILE: path.join(dir, 'market.json') });
    });
    afterAll(async () => { await t?.close(); });

    it('earns nothing: the commission is 0 and the referral balance does not move', async () => {
      const { affiliate, p, planned } = await referredPayment(t, node, '20');
      expect(dec(planned.service_fee_usd).gt(0)).toBe(true);
      expect(await commissionsOf(t, p.id)).toEqual([]);
      const s = await completed(t, p.id);
      expect([units(s.service_fee), dec(s.service_fee_usd).isZero()]).toEqual([0n, true]);
      expect(units(s.network_fee)).toBe(units(planned.network_fee) + units(planned.service_fee));
      const rows = await commissionsOf(t, p.id);
      expect(rows.map((r) => [r.feeUsd.toString(), r.amount])).toEqual([['0', 0n]]);
      const entries = await t.platform.db.orm.select().from(affiliateEntries).where(eq(affiliateEntries.affiliateId, affiliate.merchant.id));
      expect(entries).toEqual([]);
      await expectReferralBalancesHold(t.platform.db);
    });
  });
});
