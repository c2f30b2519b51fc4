// A direct Tron settlement's network fee as it was burnt, not as it was quoted (issue "Live chains
// III"). The plan takes the quoted fee (market `network_fee_usd`) out of the deposit; the chain then
// burns what the transactions really cost (java-tron's `fee` of each transaction info: bandwidth,
// energy, a new account's creation), read back on the transfers as `mined_fee`. Once every transfer
// of the settlement is final, `network_fee` becomes what was burnt, and the difference with the quote
// is the service's: its `service_fee` takes it (up when the chain burnt less, down when it burnt
// more, never below 0), so `amount = net + service_fee + network_fee + conversion_fee` stays exact
// and the merchant's `net` never moves (it was sent). The merchant's ledger gets a `fee` and a
// `network_fee` entry that correct the planned ones by opposite amounts (the balance is unchanged).
import { and, eq } from 'drizzle-orm';
import { dec, unitsRoundedUp, unitsToDecimal, usdHalfUp, type Decimal } from '../money/index.ts';
import type { Executor } from '../platform/db/index.ts';
import { appendEvent } from '../events/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import { settlements, type SettlementRow } from './schema.ts';
import { settlementJson } from './json.ts';
import { emitBalances, postEntries } from './balance-store.ts';
import type { LedgerEntryPlan } from './ledger.ts';

export const NOTE_BURNT_FEE = 'network fee as burnt on chain';

/** What was burnt in the settlement's own coin: as is when it is that coin, else at today's rates, rounded up. */
export function burntInToken(token: TokenSymbol, burnt: { token: TokenSymbol; amount: bigint }, rates: Partial<Record<TokenSymbol, Decimal>>): bigint | null {
  if (burnt.token === token) return burnt.amount;
  const from = rates[burnt.token];
  const to = rates[token];
  if (!from || !to || to.lte(0)) return null;
  const { decimals, precision } = TOKEN_DEFS[token];
  return unitsRoundedUp(unitsToDecimal(burnt.amount, TOKEN_DEFS[burnt.token].decimals).mul(from).div(to), precision, decimals);
}

export interface FeeFigures {
  amount: bigint; serviceFee: bigint; networkFee: bigint;
  usdValue: Decimal; serviceFeeUsd: Decimal; networkFeeUsd: Decimal;
}

/**
 * The service fee and network fee once `burnt` is known: their sum (coins and dollars) is kept, the
 * network fee takes what was burnt up to all of it, the service fee the rest. Dollars: the network
 * fee's share of `usd_value` to the cent half-up, capped the same way.
 */
export function burntSplit(f: FeeFigures, burnt: bigint): Pick<FeeFigures, 'serviceFee' | 'networkFee' | 'serviceFeeUsd' | 'networkFeeUsd'> {
  const share = f.serviceFee + f.networkFee;
  const networkFee = burnt < share ? burnt : share;
  const shareUsd = f.serviceFeeUsd.plus(f.networkFeeUsd);
  const exactUsd = f.amount === 0n ? dec(0) : usdHalfUp(f.usdValue.mul(dec(networkFee)).div(dec(f.amount)));
  const networkFeeUsd = exactUsd.gt(shareUsd) ? shareUsd : exactUsd;
  return { serviceFee: share - networkFee, networkFee, serviceFeeUsd: shareUsd.minus(networkFeeUsd), networkFeeUsd };
}

/**
 * Records `burnt` (native coin, summed over the settlement's transfers and their gas top-ups) as the
 * network fee of a completed direct settlement; false when there is nothing to change (already
 * recorded, or no rate to price a token settlement's burn in its coin: the quote then stands).
 */
export async function recordBurntFee(
  tx: Executor, id: string, burnt: { token: TokenSymbol; amount: bigint }, rates: Partial<Record<TokenSymbol, Decimal>>, now: Date,
): Promise<boolean> {
  const [row] = await tx.select().from(settlements).where(eq(settlements.id, id)).for('update');
  if (!row || row.mode !== 'direct' || row.status !== 'completed') return false;
  const token = row.token as TokenSymbol;
  const inToken = burntInToken(token, burnt, rates);
  if (inToken === null) return false;
  const next = burntSplit(row, inToken);
  if (next.networkFee === row.networkFee && next.networkFeeUsd.eq(row.networkFeeUsd)) return false;
  const [updated] = await tx.update(settlements).set({ ...next, updatedAt: now })
    .where(and(eq(settlements.id, id), eq(settlements.status, 'completed'))).returning();
  const reference = `${row.paymentId}:${row.depositTx}`;
  const chain = TOKEN_DEFS[token].chain;
  // the planned entries took -service_fee and -network_fee: these move each to its new figure (sum 0)
  const entries: LedgerEntryPlan[] = [
    { type: 'network_fee', token, chain, amount: row.networkFee - next.networkFee, usd_amount: row.networkFeeUsd.minus(next.networkFeeUsd), reference, note: NOTE_BURNT_FEE },
    { type: 'fee', token, chain, amount: row.serviceFee - next.serviceFee, usd_amount: row.serviceFeeUsd.minus(next.serviceFeeUsd), reference, note: NOTE_BURNT_FEE },
  ].filter((e) => e.amount !== 0n || !e.usd_amount.isZero()) as LedgerEntryPlan[];
  const key = { merchantId: row.merchantId, livemode: row.livemode };
  await postEntries(tx, key, entries, now, { paymentId: row.paymentId });
  await emitBalances(tx, key, now);
  // the figures changed, not the status: no second `settlement.completed`
  await appendEvent(tx, { type: 'settlement:update', livemode: row.livemode, merchantId: row.merchantId, paymentId: row.paymentId, data: settlementJson(updated as SettlementRow), at: now });
  return true;
}
