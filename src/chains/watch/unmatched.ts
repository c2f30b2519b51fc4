// Transfers to our addresses no payment took (spec 1 Payment behaviour 6): listed for the operator
// (GET /admin/unmatched-deposits) and in the trail of the payment whose address it was.
import { desc, eq } from 'drizzle-orm';
import type { Executor } from '../../platform/db/index.ts';
import { formatUnits, formatUsd } from '../../money/index.ts';
import { tokenDef, type TokenSymbol } from '../../tokens/index.ts';
import { unmatchedDeposits, type UnmatchedDepositRow } from './schema.ts';

/** The operator's list holds the newest this many. */
export const UNMATCHED_LIST_MAX = 200;

export function unmatchedDepositJson(r: UnmatchedDepositRow): Record<string, unknown> {
  return {
    id: r.id,
    ...(r.merchantId ? { merchant_id: r.merchantId } : {}),
    chain: r.chain,
    token: r.token,
    address: r.address,
    ...(r.destinationTag !== null ? { destination_tag: r.destinationTag } : {}),
    tx_id: r.txId,
    amount: formatUnits(r.amount, tokenDef(r.token as TokenSymbol).decimals),
    // Absent, never null (CONTRACT.md "Values and formats"): no value when the coin had no current
    // price as the transfer was seen; no block for none (only mined transfers are recorded).
    ...(r.usdValue !== null ? { usd_value: formatUsd(r.usdValue) } : {}),
    ...(r.block !== null ? { block: r.block } : {}),
    seen_at: r.seenAt.toISOString(),
  };
}

export async function listUnmatched(ex: Executor, chain?: string): Promise<Record<string, unknown>[]> {
  const rows = await ex.select().from(unmatchedDeposits).where(chain === undefined ? undefined : eq(unmatchedDeposits.chain, chain))
    .orderBy(desc(unmatchedDeposits.seenAt), desc(unmatchedDeposits.id)).limit(UNMATCHED_LIST_MAX);
  return rows.map(unmatchedDepositJson);
}

/** The trail's `unmatched_deposits` of a payment: transfers to its address after it could take no more. */
export async function unmatchedOfPayment(ex: Executor, paymentId: string): Promise<Record<string, unknown>[]> {
  const rows = await ex.select().from(unmatchedDeposits).where(eq(unmatchedDeposits.paymentId, paymentId)).orderBy(desc(unmatchedDeposits.seenAt));
  return rows.map(unmatchedDepositJson);
}
