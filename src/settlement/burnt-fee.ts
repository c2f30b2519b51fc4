// A direct Tron settlement's network fee as it was burnt, not as it was quoted (issue "Live chains
// III"). The plan takes the quoted fee (market `network_fee_usd`) out of the deposit; the chain then
// burns what the transactions really cost (java-tron's `fee` of each transaction info: bandwidth,
// energy, a new account's creation), read back on the transfers as `mined_fee`. Once no transfer
// of the settlement is open (the merchant's, the service's share, the deposit address's TRX top-up:
// final, or given up), `network_fee` becomes what was burnt, priced in the settlement's coin, and the
// difference with the quote is the service's (real-network-fee.ts: `service_fee` takes it, `net`
// never moves). A burn dearer than the service's whole share is recorded up to that share
// (`service_fee` 0): the rest is the service's loss, never the merchant's.
import { eq } from 'drizzle-orm';
import { unitsRoundedUp, unitsToDecimal, type Decimal } from '../money/index.ts';
import type { Executor } from '../platform/db/index.ts';
import { appendEvent } from '../events/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import { settlements, type SettlementRow } from './schema.ts';
import { settlementJson } from './json.ts';
import { recordRealNetworkFee } from './real-network-fee.ts';
import { finalServiceFee } from './settlement-writer.ts';
import type { ServiceFeePort } from './ports.ts';

/** What was burnt in the settlement's own coin: as is when it is that coin, else at today's rates, rounded up. */
export function burntInToken(token: TokenSymbol, burnt: { token: TokenSymbol; amount: bigint }, rates: Partial<Record<TokenSymbol, Decimal>>): bigint | null {
  if (burnt.token === token) return burnt.amount;
  const from = rates[burnt.token];
  const to = rates[token];
  if (!from || !to || to.lte(0)) return null;
  const { decimals, precision } = TOKEN_DEFS[token];
  return unitsRoundedUp(unitsToDecimal(burnt.amount, TOKEN_DEFS[burnt.token].decimals).mul(from).div(to), precision, decimals);
}

/**
 * The settlement's row, locked in `tx` (undefined when there is none). Taken before reading whether
 * its transfers are all closed: two of them ending at once in two transactions would each see the
 * other still open and neither would record the burnt fee; with the lock the second waits for the
 * first to commit, then reads its transfer closed.
 */
export async function lockSettlement(tx: Executor, id: string): Promise<SettlementRow | undefined> {
  return (await tx.select().from(settlements).where(eq(settlements.id, id)).for('update'))[0];
}

/**
 * Records `burnt` (native coin, summed over the settlement's transfers and their gas top-ups) as the
 * network fee of a completed direct settlement; false when there is nothing to change (already
 * recorded, or no rate to price a token settlement's burn in its coin: the quote then stands).
 * `settlement`: its row when the caller holds it locked in `tx` (it has just completed it), else its
 * id (read and locked here). Its service fee is final then, burnt fee recorded or quote standing:
 * `fees` (the referral program) is told of it here (settlement-writer.ts finalServiceFee).
 */
export async function recordBurntFee(
  tx: Executor, settlement: SettlementRow | string, burnt: { token: TokenSymbol; amount: bigint }, rates: Partial<Record<TokenSymbol, Decimal>>, now: Date,
  fees: ServiceFeePort | null = null,
): Promise<boolean> {
  const row = typeof settlement === 'string' ? await lockSettlement(tx, settlement) : settlement;
  if (!row || row.mode !== 'direct' || row.status !== 'completed') return false;
  const updated = await recordBurnt(tx, row, burnt, rates, now);
  await finalServiceFee(tx, updated ?? row, fees, now);
  return updated !== null;
}

/** The settlement's row with the burnt fee recorded; null when nothing changed. */
async function recordBurnt(
  tx: Executor, row: SettlementRow, burnt: { token: TokenSymbol; amount: bigint }, rates: Partial<Record<TokenSymbol, Decimal>>, now: Date,
): Promise<SettlementRow | null> {
  const inToken = burntInToken(row.token as TokenSymbol, burnt, rates);
  if (inToken === null) return null;
  const pool = row.serviceFee + row.networkFee;
  if (!await recordRealNetworkFee(tx, row, inToken < pool ? inToken : pool, now)) return null;
  const [updated] = await tx.select().from(settlements).where(eq(settlements.id, row.id));
  // the figures changed, not the status: no second `settlement.completed`
  await appendEvent(tx, { type: 'settlement:update', livemode: row.livemode, merchantId: row.merchantId, paymentId: row.paymentId, data: settlementJson(updated as SettlementRow), at: now });
  return updated as SettlementRow;
}
