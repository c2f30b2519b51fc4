// Live direct settlements made before a transfer service existed wait with NOTE_WAITING_TRANSFER.
// Once the chain room plugs its TransferPort in, this sends them: the same transfers the plan
// made (the settlement, or what its conversion bought, to the destination; the service fee to
// the service, except on XRP where it stays on the shared address, rule 7).
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/index.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import type { Chain } from '../config.ts';
import type { TransferPort } from './ports.ts';
import { settlements, type SettlementRow } from './schema.ts';
import type { StoredConversion } from './json.ts';
import type { StoredInput } from './stored-input.ts';
import { NOTE_WAITING_TRANSFER, settlementEvents } from './settlement-writer.ts';

export async function sendWaitingTransfers(db: Database, port: TransferPort, now: Date): Promise<number> {
  const waiting = await db.orm.select({ id: settlements.id }).from(settlements)
    .where(and(eq(settlements.status, 'pending'), eq(settlements.note, NOTE_WAITING_TRANSFER), isNull(settlements.transferIntents), isNull(settlements.awaitsUntil)))
    .orderBy(asc(settlements.createdAt)).limit(500);
  let n = 0;
  for (const { id } of waiting) if (await db.transaction((tx) => sendOne(tx, id, port, now))) n++;
  return n;
}

async function sendOne(tx: Executor, id: string, port: TransferPort, now: Date): Promise<boolean> {
  const [row] = await tx.select().from(settlements).where(eq(settlements.id, id)).for('update');
  if (!row || row.status !== 'pending' || row.note !== NOTE_WAITING_TRANSFER || row.transferIntents || !row.destination) return false;
  const from = (row.input as StoredInput).payment.deposit_address;
  const c = row.conversion as StoredConversion | null;
  const chain = row.chain as Chain;
  const intents = [await port.send(tx, {
    chain, token: (c ? c.to : row.token) as TokenSymbol, ...(from ? { from } : {}), to: row.destination,
    amount: c ? BigInt(c.amount_out) : row.net, ...(row.destinationTag !== null ? { tag: row.destinationTag } : {}), reference: row.id,
  })];
  if (row.token !== 'XRP') {
    intents.push(await port.send(tx, { chain, token: row.token as TokenSymbol, ...(from ? { from } : {}), amount: row.serviceFee, reference: row.id }));
  }
  const [updated] = await tx.update(settlements).set({ transferIntents: intents, note: null, updatedAt: now }).where(eq(settlements.id, id)).returning();
  await settlementEvents(tx, updated as SettlementRow, now);
  return true;
}
