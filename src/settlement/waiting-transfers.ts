// Live direct settlements made before a transfer service existed wait with NOTE_WAITING_TRANSFER.
// Once the chain room plugs its TransferPort in, this sends them: the same transfers the plan
// made (the settlement, or what its conversion bought, to the destination; the service's share, its
// fee, the network fee and a conversion's fee, to the service, except on XRP where it stays on the
// shared address, rule 7). A destination the gateway refuses by now (its own address, a token
// contract) is sent nothing: the settlement is kept in the balance instead (refused-destination.ts).
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/index.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import type { Chain } from '../config.ts';
import type { OwnAddressCheck, ServiceFeePort, TransferPort, TransferRequest } from './ports.ts';
import { keepRefusedSettlement, refusedDestination } from './refused-destination.ts';
import { settlements, type SettlementRow } from './schema.ts';
import type { StoredConversion } from './json.ts';
import type { StoredInput } from './stored-input.ts';
import { NOTE_WAITING_CONVERSION, NOTE_WAITING_TRANSFER, settlementEvents, transfersFor } from './settlement-writer.ts';

/** What sending needs besides the port: the check of the destination, and the referral program told of a fee final now. */
export interface WaitingChecks { ownAddresses: OwnAddressCheck; fees?: ServiceFeePort | null }

export async function sendWaitingTransfers(db: Database, port: TransferPort, checks: WaitingChecks, now: Date): Promise<number> {
  const waiting = await db.orm.select({ id: settlements.id, chain: settlements.chain }).from(settlements)
    .where(and(eq(settlements.status, 'pending'), eq(settlements.note, NOTE_WAITING_TRANSFER), isNull(settlements.transferIntents), isNull(settlements.awaitsUntil)))
    .orderBy(asc(settlements.createdAt)).limit(500);
  let n = 0;
  for (const { id, chain } of waiting) {
    if (transfersFor(port, chain as Chain) && await db.transaction((tx) => sendOne(tx, id, port, checks, now))) n++;
  }
  return n;
}

/** A settlement's transfers as it was planned: the merchant's (net, or what a conversion bought), then the service's share. */
export function settlementRequests(row: SettlementRow): TransferRequest[] {
  const from = (row.input as StoredInput).payment.deposit_address;
  const c = row.conversion as StoredConversion | null;
  const chain = row.chain as Chain;
  const origin = from ? { from } : {};
  const out: TransferRequest[] = [{
    chain, token: (c ? c.to : row.token) as TokenSymbol, ...origin, ...(row.destination ? { to: row.destination } : {}),
    amount: c ? BigInt(c.amount_out) : row.net, ...(row.destinationTag !== null ? { tag: row.destinationTag } : {}), purpose: 'settlement', reference: row.id,
  }];
  if (row.token !== 'XRP') {
    const share = row.serviceFee + row.networkFee + row.conversionFee;
    out.push({ chain, token: row.token as TokenSymbol, ...origin, amount: share, purpose: 'service_fee', reference: row.id });
  }
  return out;
}

async function sendOne(tx: Executor, id: string, port: TransferPort, checks: WaitingChecks, now: Date): Promise<boolean> {
  const [row] = await tx.select().from(settlements).where(eq(settlements.id, id)).for('update');
  if (!row || row.status !== 'pending' || row.note !== NOTE_WAITING_TRANSFER || row.transferIntents || !row.destination) return false;
  // one made before conversions waited for their own service: it keeps waiting, now for that
  if ((row.conversion as StoredConversion | null)?.status === 'pending') {
    await tx.update(settlements).set({ note: NOTE_WAITING_CONVERSION, updatedAt: now }).where(eq(settlements.id, id));
    return false;
  }
  const refusal = await refusedDestination(tx, checks.ownAddresses, row);
  if (refusal) {
    await keepRefusedSettlement(tx, row, refusal, port, checks.fees ?? null, now);
    return true;
  }
  const intents: string[] = [];
  for (const req of settlementRequests(row)) intents.push(await port.send(tx, req));
  const [updated] = await tx.update(settlements).set({ transferIntents: intents, note: null, updatedAt: now }).where(eq(settlements.id, id)).returning();
  await settlementEvents(tx, updated as SettlementRow, now);
  return true;
}
