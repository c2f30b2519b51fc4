// What the service's team does with a direct settlement the chain room gave up on (spec 3: `failed`,
// "the service's team retries or returns it to the balance"; CONTRACT.md operator routes): retry
// (back to `pending`, its failed transfers tried again) or return (the money credited to the
// merchant's balance as `settlement_return`; the settlement then reads `completed` in mode
// `custodial`, where the money went, and its deposit is swept into the service's wallet). Both are
// audited with the operator as actor.
import { eq } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import { badRequest, conflict, notFound } from '../platform/errors.ts';
import { NOTE_MAX, requireCapped } from '../platform/text-input.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import type { Chain } from '../config.ts';
import type { OwnAddressCheck, ServiceFeePort, TransferPort, TransferRequest } from './ports.ts';
import { refusedDestination } from './refused-destination.ts';
import { executedLedger } from './conversion-ledger.ts';
import { settlements, type SettlementRow } from './schema.ts';
import { settlementJson, type StoredConversion } from './json.ts';
import { needsSweep, postLedger, settlementEvents, transfersFor } from './settlement-writer.ts';
import { creditBack } from './credit-back.ts';
import { settlementRequests } from './waiting-transfers.ts';
import { SETTLEMENT_NOT_FOUND } from './statement.ts';
import { ADJUST_NOTE_REQUIRED } from './adjustments.ts';

export const SETTLEMENT_NOT_FAILED = 'only a failed direct settlement can be retried or returned';
export const noTransfersOn = (chain: string): string => `transfers on ${chain} cannot be made now`;
export const returnedNote = (note: string): string => `returned to the balance: ${note}`;

/**
 * Lock order: the settlement's transfers, then the settlement, as the transfer worker takes them (it
 * ends a transfer, then completes or fails its settlement) and the conversion step (its payout's,
 * then the settlement's): a retry taking the settlement's first and then, trying its failed transfers
 * again, theirs deadlocked with the conversion step and PostgreSQL aborted one.
 */
async function lockFailed(tx: Executor, id: string, port: TransferPort | null): Promise<SettlementRow> {
  await port?.lockReference?.(tx, id);
  const [row] = await tx.select().from(settlements).where(eq(settlements.id, id)).for('update');
  if (!row) throw notFound(SETTLEMENT_NOT_FOUND);
  if (row.status !== 'failed' || row.mode !== 'direct') throw conflict(SETTLEMENT_NOT_FAILED);
  return row;
}

async function save(tx: Executor, before: SettlementRow, set: Partial<SettlementRow>, action: string, actor: Actor, now: Date, note?: string): Promise<SettlementRow> {
  const [row] = await tx.update(settlements).set({ ...set, updatedAt: now }).where(eq(settlements.id, before.id)).returning();
  await settlementEvents(tx, row, now);
  await recordAudit(tx, {
    merchantId: row.merchantId, action, actor, subject: row.id, paymentId: row.paymentId,
    before: settlementJson(before), after: settlementJson(row), ...(note ? { note } : {}), at: now,
  });
  return row;
}

/**
 * Back to `pending`: its failed transfers are tried again (or, when there are none, its own transfer is
 * made anew); 400 with the refusal when its destination is one no payout may go to.
 */
export async function retrySettlement(
  tx: Executor, id: string, port: TransferPort | null, ownAddresses: OwnAddressCheck, actor: Actor, now: Date,
): Promise<SettlementRow> {
  const row = await lockFailed(tx, id, port);
  // a destination the gateway refuses by now (its own address, a token contract) is never sent to
  // again: the operator returns the settlement to the balance instead
  const refusal = await refusedDestination(tx, ownAddresses, row);
  if (refusal) throw badRequest(refusal);
  const p = transfersFor(port, row.chain as Chain);
  if (!p?.retry) throw conflict(noTransfersOn(row.chain));
  const intents = [...(row.transferIntents ?? [])];
  const c = row.conversion as StoredConversion | null;
  if (c?.treasury) {
    // a treasury conversion (conversions.ts) picks up again where it stopped: a step whose transfer
    // was canceled rather than failed is made anew by the next pass (the sweep), or sent again here (the payout)
    if (await p.retry(tx, row.id) === 0) {
      if (!c.payout) return save(tx, row, { status: 'pending', note: null, conversion: { ...c, sweep: undefined } }, 'settlement.retried', actor, now);
      const payout = await p.send(tx, treasuryPayout(row, c));
      intents.push(payout);
      return save(tx, row, { status: 'pending', note: null, transferIntents: intents, conversion: { ...c, payout } }, 'settlement.retried', actor, now);
    }
    return save(tx, row, { status: 'pending', note: null }, 'settlement.retried', actor, now);
  }
  if (await p.retry(tx, row.id) === 0) intents.push(await p.send(tx, settlementRequests(row)[0]));
  return save(tx, row, { status: 'pending', note: null, transferIntents: intents }, 'settlement.retried', actor, now);
}

/** A treasury conversion's payout: amount_out of the target coin from the service's hot wallet of its chain. */
export function treasuryPayout(row: SettlementRow, c: StoredConversion): TransferRequest {
  return {
    chain: TOKEN_DEFS[c.to].chain, token: c.to, to: row.destination!, amount: BigInt(c.amount_out),
    ...(row.destinationTag !== null ? { tag: row.destinationTag } : {}), purpose: 'settlement', reference: row.id,
  };
}

/** Its money is credited to the merchant's balance; the coins on the deposit address go to the service's wallet. */
export async function returnSettlement(
  tx: Executor, id: string, body: Record<string, unknown>, port: TransferPort | null, actor: Actor, now: Date, fees: ServiceFeePort | null = null,
): Promise<SettlementRow> {
  const note = requireCapped('note', body.note, ADJUST_NOTE_REQUIRED, NOTE_MAX);
  const row = await lockFailed(tx, id, port);
  const c = row.conversion as StoredConversion | null;
  // a treasury conversion not carried out yet has no ledger entries: they come first, as if it had been
  // (and its service fee, final now, told to the referral program as postLedger tells it)
  if (c?.treasury && !c.payout) await postLedger(tx, row, executedLedger(row, c), fees, now);
  // what the `settlement` entry took out of the balance comes back: the net, or what its conversion was to buy
  await creditBack(tx, row, note, fees, now);
  const intents = [...(row.transferIntents ?? [])];
  const p = transfersFor(port, row.chain as Chain);
  const [own] = settlementRequests(row);
  if (c?.treasury) {
    // its deposit went (or goes) to the service's wallet by its own sweep: a failed sweep is tried again
    if (p?.retry && !c.payout) await p.retry(tx, row.id);
  } else if (p && needsSweep(row.token, own.from)) {
    // the coins that never left: the deposit's net, before any conversion (an XRP deposit's are on the service address already)
    intents.push(await p.send(tx, { chain: own.chain, token: row.token as TokenSymbol, from: own.from, amount: c ? BigInt(c.amount_in) : row.net, purpose: 'sweep', reference: row.id }));
  }
  // the balance now holds what the conversion was to buy (its entries written, here or when it was
  // carried out): a settlement that is over no longer shows its conversion `pending`
  const conversion = c && c.status === 'pending' ? { ...c, status: 'done' } : c;
  return save(tx, row, {
    status: 'completed', mode: 'custodial', completedAt: now, note: returnedNote(note), transferIntents: intents, conversion,
  }, 'settlement.returned', actor, now, note);
}
