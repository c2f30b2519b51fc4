// A direct settlement's network fee as its transaction really cost (Bitcoin, Litecoin, Dogecoin:
// one transaction per settlement, whose fee is the settlement's whole network fee, known once it is
// mined, after any fee bump; Tron: what its transfers burnt, burnt-fee.ts). The merchant's `net` never changes: the service's share (its fee
// plus the quoted network fee) paid the transaction's fee, so what the quote got wrong moves
// between `network_fee` and `service_fee`, and amount = net + service_fee + network_fee +
// conversion_fee holds exactly with the real fee, in coins and in dollars (net_usd unchanged).
import { and, eq } from 'drizzle-orm';
import { dec, usdHalfUp, type Decimal } from '../money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import type { Executor } from '../platform/db/index.ts';
import type { CoinSplit } from './fees.ts';
import type { LedgerEntryPlan } from './ledger.ts';
import { settlementReference } from './ledger.ts';
import { postEntries } from './balance-store.ts';
import { settlements, type SettlementRow } from './schema.ts';

export const NOTE_REAL_NETWORK_FEE = 'the network fee the transaction really cost';

/** Chains whose direct settlements record the network fee they really cost (Bitcoin family here, Tron burnt-fee.ts). */
const REAL_FEE_CHAINS: ReadonlySet<string> = new Set(['bitcoin', 'litecoin', 'dogecoin', 'tron']);

/**
 * Whether a settlement's service fee may still change when it completes: a live direct settlement
 * on such a chain, sent by its deposit address (a treasury conversion is excluded: its fee entries
 * are written when it is carried out, and the referral program is told then). While it is pending
 * (or failed: a retry sends it again) its fee is not final; it is once it completes (executor.ts
 * completeSettlement; on Tron once its transfers are all closed, burnt-fee.ts) or is returned to the
 * balance (the quote stands). The referral program is told then (settlement-writer.ts finalServiceFee).
 */
export function recordsRealNetworkFee(row: Pick<SettlementRow, 'livemode' | 'mode' | 'chain' | 'conversion'>): boolean {
  return row.livemode && row.mode === 'direct' && REAL_FEE_CHAINS.has(row.chain) && !treasuryConversion(row);
}

/**
 * A live conversion carried out by the treasury: the transfer that completes it is the hot wallet's
 * payout on the target coin's chain, whose fee (in that chain's coin, e.g. satoshis for an ETH
 * deposit paid out in BTC) is the treasury's cost, not the network fee of moving the deposit.
 */
const treasuryConversion = (row: Pick<SettlementRow, 'conversion'>): boolean => !!(row.conversion as { treasury?: boolean } | null)?.treasury;

export interface FeeFigures extends CoinSplit {
  usd_value: Decimal;
  service_fee_usd: Decimal;
  network_fee_usd: Decimal;
}

/**
 * The figures with `real` as the network fee, or null when the service's fee and the quoted
 * network fee together could not have paid it (then the quote stands). Dollars: the network fee's
 * share of usd_value half-up to the cent, never more than the two fees' dollars; the service fee
 * takes the rest of them.
 */
export function withRealNetworkFee(f: FeeFigures, real: bigint): FeeFigures | null {
  const pool = f.service_fee + f.network_fee;
  if (real < 0n || real > pool) return null;
  const usdPool = f.service_fee_usd.plus(f.network_fee_usd);
  const share = f.amount === 0n ? dec(0) : usdHalfUp(f.usd_value.mul(dec(real)).div(dec(f.amount)));
  const networkUsd = share.gt(usdPool) ? usdPool : share;
  return { ...f, service_fee: pool - real, network_fee: real, network_fee_usd: networkUsd, service_fee_usd: usdPool.minus(networkUsd) };
}

/**
 * Records the real fee on a settlement locked by the caller (pending: a UTXO settlement's one
 * transaction; completed: a Tron settlement once all its transfers are final, burnt-fee.ts): its
 * figures, and in the ledger the difference moved from `network_fee` to `fee` (two entries summing
 * to zero, so the balance does not move). Returns whether anything changed.
 */
export async function recordRealNetworkFee(tx: Executor, row: SettlementRow, real: bigint, now: Date): Promise<boolean> {
  if (real === row.networkFee || treasuryConversion(row)) return false;
  const before: FeeFigures = {
    amount: row.amount, service_fee: row.serviceFee, network_fee: row.networkFee, conversion_fee: row.conversionFee, net: row.net,
    usd_value: row.usdValue, service_fee_usd: row.serviceFeeUsd, network_fee_usd: row.networkFeeUsd,
  };
  const after = withRealNetworkFee(before, real);
  if (!after) return false;
  await tx.update(settlements).set({
    serviceFee: after.service_fee, networkFee: after.network_fee, serviceFeeUsd: after.service_fee_usd, networkFeeUsd: after.network_fee_usd, updatedAt: now,
  }).where(and(eq(settlements.id, row.id), eq(settlements.status, row.status)));
  const token = row.token as TokenSymbol;
  const reference = settlementReference(row);
  const entry = (type: 'fee' | 'network_fee', amount: bigint, usd: Decimal): LedgerEntryPlan =>
    ({ type, token, chain: TOKEN_DEFS[token].chain, amount, usd_amount: usd, reference, note: NOTE_REAL_NETWORK_FEE });
  // debits are negative: a dearer transaction debits more network fee and less service fee
  const entries = [
    entry('network_fee', before.network_fee - after.network_fee, before.network_fee_usd.minus(after.network_fee_usd)),
    entry('fee', before.service_fee - after.service_fee, before.service_fee_usd.minus(after.service_fee_usd)),
  ].filter((e) => e.amount !== 0n || !e.usd_amount.isZero());
  await postEntries(tx, { merchantId: row.merchantId, livemode: row.livemode }, entries, now, { paymentId: row.paymentId });
  return true;
}
