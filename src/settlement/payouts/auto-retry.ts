// Rule 6, later: a direct merchant's USDT balance made by the fallback waits when no USDT address on
// BNB Smart Chain or Ethereum is in use; once one is (added, or active 24 hours after a change) the
// whole balance is paid out to it (`requested_by` = `auto`), as if the address had been there.
import { and, eq, gte, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../platform/db/index.ts';
import type { MarketData } from '../../market/index.ts';
import { parseUnits } from '../../money/index.ts';
import { TOKEN_DEFS } from '../../tokens/index.ts';
import { merchants } from '../../accounts/schema.ts';
import { autoPayout, BALANCE_TOKEN, MIN_PAYOUT_USD, REQUESTED_BY_AUTO } from '../planner.ts';
import { addressById, addressesInForce, planAddress } from '../address-store.ts';
import { lockBalance } from '../balance-store.ts';
import { balances, type PayoutRow } from '../schema.ts';
import { createPayoutOrWait } from './payout-store.ts';
import type { OwnAddressCheck } from '../ports.ts';

/**
 * Merchants who settle directly, kept a fallback in their live USDT balance (a live `custodial`
 * settlement of a `direct` payment) since their last automatic payout, and hold $10 of it. Only a
 * fallback credited after the last automatic payout counts: one the operator rejected or the
 * merchant canceled put its amount back in the balance to stay, and was otherwise requested again
 * every minute. A fallback in the same transaction as its own payout (same time) is not newer.
 */
async function waitingMerchants(db: Database): Promise<string[]> {
  const least = parseUnits(MIN_PAYOUT_USD.toFixed(), TOKEN_DEFS[BALANCE_TOKEN].decimals)!; // a stablecoin: one token is one dollar
  const rows = await db.orm.select({ id: merchants.id }).from(merchants)
    .innerJoin(balances, and(eq(balances.merchantId, merchants.id), eq(balances.livemode, true), eq(balances.token, BALANCE_TOKEN)))
    .where(and(
      eq(merchants.settlement, 'direct'), eq(merchants.status, 'active'), gte(balances.available, least),
      sql`exists (select 1 from settlements s where s.merchant_id = ${merchants.id} and s.livemode and s.mode = 'custodial'
        and s.input->'payment'->>'settlement' = 'direct'
        and coalesce(s.completed_at, s.created_at) > coalesce(
          (select max(p.created_at) from payouts p where p.merchant_id = ${merchants.id} and p.requested_by = ${REQUESTED_BY_AUTO}),
          '-infinity'::timestamptz))`,
    ));
  return rows.map((r) => r.id);
}

async function payOut(tx: Executor, merchantId: string, market: MarketData, ownAddresses: OwnAddressCheck, now: Date): Promise<PayoutRow | null> {
  const balance = await lockBalance(tx, { merchantId, livemode: true }, BALANCE_TOKEN, now);
  const request = autoPayout(balance.available, (await addressesInForce(tx, merchantId, true)).map(planAddress), now);
  const address = request && await addressById(tx, merchantId, request.address_id);
  if (!address) return null;
  return createPayoutOrWait(tx, { merchantId, address, fromToken: BALANCE_TOKEN, amount: undefined, requestedBy: REQUESTED_BY_AUTO, market, now, ownAddresses });
}

/** One pass: the automatic payouts now possible; returns those made. */
export async function retryAutoPayouts(db: Database, market: MarketData, ownAddresses: OwnAddressCheck, now: Date): Promise<PayoutRow[]> {
  const made: PayoutRow[] = [];
  for (const id of await waitingMerchants(db)) {
    const p = await db.transaction((tx) => payOut(tx, id, market, ownAddresses, now));
    if (p) made.push(p);
  }
  return made;
}
