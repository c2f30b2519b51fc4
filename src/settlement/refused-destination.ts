// A direct settlement planned to a payout address the gateway refuses (its own address, a token
// contract: an address stored before they were refused, or a settlement planned before), checked
// again when it is finally sent: one that waited for the transfer service, and a treasury conversion
// about to pay what it bought or whose payout, nothing signed for it, waits for the hot wallet's
// funds (conversions.ts), is kept in the merchant's balance instead, as the planner keeps a deposit
// routed to such an address (rule 6).
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import type { Chain } from '../config.ts';
import type { OwnAddressCheck, ServiceFeePort, TransferPort } from './ports.ts';
import { payoutAddresses, settlements, type SettlementRow } from './schema.ts';
import type { StoredConversion } from './json.ts';
import type { StoredInput } from './stored-input.ts';
import { refusedAddressNote } from './routing.ts';
import { tellRefused } from './refused-address.ts';
import { creditBack } from './credit-back.ts';
import { needsSweep, settlementEvents } from './settlement-writer.ts';

/** The coin the settlement's destination receives: what its conversion buys, or the deposit's coin. */
const paidToken = (row: SettlementRow): TokenSymbol => ((row.conversion as StoredConversion | null)?.to ?? row.token) as TokenSymbol;

/** Why nothing may be sent to the live settlement's destination, or null (test settlements are on paper). */
export async function refusedDestination(ex: Executor, check: OwnAddressCheck, row: SettlementRow): Promise<string | null> {
  if (!row.livemode || !row.destination) return null;
  return check(ex, paidToken(row), row.destination);
}

/**
 * The settlement `row` (locked, nothing sent to its destination yet) kept in the balance: its net, or
 * what its conversion bought, credited back, the whole deposit swept into the service's wallet as for
 * any deposit kept in a balance (a treasury conversion's already is: `row.conversion.sweep`), the
 * settlement `completed` in mode `custodial` with rule 6's note and `row.conversion` as given, and the
 * team told.
 */
export async function keepRefusedSettlement(
  tx: Executor, row: SettlementRow, refusal: string, port: TransferPort, fees: ServiceFeePort | null, now: Date,
): Promise<SettlementRow> {
  const note = refusedAddressNote(refusal);
  await creditBack(tx, row, note, fees, now);
  const from = (row.conversion as StoredConversion | null)?.sweep ? null : (row.input as StoredInput).payment.deposit_address;
  const intents = [...(row.transferIntents ?? [])];
  if (needsSweep(row.token, from)) intents.push(await port.send(tx, { chain: row.chain as Chain, token: row.token as TokenSymbol, from, amount: row.amount, purpose: 'sweep', reference: row.id }));
  const [updated] = await tx.update(settlements).set({
    mode: 'custodial', status: 'completed', completedAt: now, note, destination: null, destinationTag: null, conversion: row.conversion,
    transferIntents: intents.length > 0 ? intents : null, updatedAt: now,
  }).where(eq(settlements.id, row.id)).returning();
  await settlementEvents(tx, updated as SettlementRow, now);
  const [address] = await tx.select().from(payoutAddresses).where(and(
    eq(payoutAddresses.merchantId, row.merchantId), eq(payoutAddresses.livemode, row.livemode), eq(payoutAddresses.token, paidToken(row)),
    eq(payoutAddresses.address, row.destination!), isNull(payoutAddresses.deletedAt),
  )).orderBy(desc(payoutAddresses.updatedAt)).limit(1);
  if (address) await tellRefused(tx, address, refusal, now);
  return updated as SettlementRow;
}
