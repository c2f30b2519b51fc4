// Payouts the service sends itself (spec 1 Payouts: "USDT on BNB Smart Chain or Ethereum is sent by
// the service itself, usually within minutes of approval, others by its team"). Approving one
// records its transfer from the hot wallet in the approval's transaction; the chain room reports
// back: `sent` with the transaction's id once it is final, or `rejected` (the amount back in the
// balance) when it could not be sent. Once its transaction may be on its way the operator can no
// longer reject it or mark it sent by hand (that would pay it twice).
import { eq } from 'drizzle-orm';
import type { Executor, Tx } from '../../platform/db/index.ts';
import type { Chain } from '../../config.ts';
import { conflict } from '../../platform/errors.ts';
import { recordAudit, type Actor } from '../../audit/index.ts';
import { rescaleUnitsDown } from '../../money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../../tokens/index.ts';
import type { TransferPort } from '../ports.ts';
import { transfersFor } from '../settlement-writer.ts';
import { payouts, type PayoutRow } from '../schema.ts';
import { payoutJson } from '../json.ts';
import { movePayout, type PayoutMove } from './payout-store.ts';

export const SERVICE_SENT_PAYOUT_TOKENS: readonly TokenSymbol[] = ['USDT_BEP20', 'USDT_ERC20'];
export const PAYOUT_BEING_SENT = 'payout is being sent by the service';
export const payoutSendFailedNote = (why: string): string => `the service could not send this payout: ${why}`;

const SYSTEM: Actor = { kind: 'system' };

/** The transfer port when the service sends this payout's coin itself, else null (the team sends it). */
export function payoutSender(row: PayoutRow, port: TransferPort | null): TransferPort | null {
  return SERVICE_SENT_PAYOUT_TOKENS.includes(row.token as TokenSymbol) ? transfersFor(port, row.chain as Chain) : null;
}

/** Records the transfer of a payout just approved: `send_amount` of the balance coin, in the payout coin's units. */
export async function sendApprovedPayout(tx: Executor, row: PayoutRow, port: TransferPort): Promise<void> {
  const token = row.token as TokenSymbol;
  const amount = rescaleUnitsDown(row.sendAmount, TOKEN_DEFS[row.fromToken as TokenSymbol].decimals, TOKEN_DEFS[token].decimals);
  await port.send(tx, { chain: row.chain as Chain, token, to: row.address, amount, purpose: 'payout', reference: row.id });
}

/**
 * The payout `id` locked for the operator's reject or mark sent, and the port sending it (null: the
 * team sends it). Lock order: its transfer's row, then the payout's, as the transfer worker takes
 * them (it ends the transfer, then marks the payout sent or rejects it, in one transaction:
 * chains/transfers/outcomes.ts); taken the other way round, an operator's reject and the worker
 * giving the transfer up deadlocked and PostgreSQL aborted one. The payout is read unlocked first to
 * know whether the service sends it (its coin never changes). Its transfer is recorded when it is
 * approved, under the payout's lock: an approval that commits after that read and before the
 * payout's lock recorded a transfer not locked here, which the call back would lock after the
 * payout's row. Then the locks are taken in a savepoint given up (its locks released) and taken
 * again, the transfer first; once approved the payout records none (at most one more round).
 */
export async function lockForReview(tx: Tx, id: string, port: TransferPort | null): Promise<{ row: PayoutRow | undefined; sender: TransferPort | null }> {
  for (;;) {
    const [seen] = await tx.select().from(payouts).where(eq(payouts.id, id));
    const sender = seen ? payoutSender(seen, port) : null;
    try {
      const row = await tx.transaction(async (sp) => {
        await sender?.lockReference?.(sp, id);
        const [locked] = await sp.select().from(payouts).where(eq(payouts.id, id)).for('update');
        if (sender && locked?.status === 'approved' && seen?.status !== 'approved') throw new ApprovedMeanwhile();
        return locked;
      });
      return { row, sender };
    } catch (err) {
      if (!(err instanceof ApprovedMeanwhile)) throw err;
    }
  }
}

/** lockForReview's savepoint given up: the payout was approved (its transfer recorded) between its read and its lock. */
class ApprovedMeanwhile extends Error {}

/** Before the operator rejects an approved payout or marks it sent (locked by lockForReview): calls its transfer back, or refuses when it may be on chain. */
export async function callBackPayout(tx: Executor, row: PayoutRow, port: TransferPort | null): Promise<void> {
  if (row.status === 'approved' && port?.cancel && !(await port.cancel(tx, row.id))) throw conflict(PAYOUT_BEING_SENT);
}

async function systemMove(tx: Executor, id: string, move: PayoutMove, now: Date): Promise<PayoutRow> {
  const row = await movePayout(tx, id, null, move, now);
  await recordAudit(tx, { merchantId: row.merchantId, action: `payout.${move.to}`, actor: SYSTEM, subject: row.id, after: payoutJson(row), at: now });
  return row;
}

/** The chain room: the payout's transfer is final. */
export function payoutSentOnChain(tx: Executor, id: string, txId: string, now: Date): Promise<PayoutRow> {
  return systemMove(tx, id, { to: 'sent', txId }, now);
}

/** The chain room gave up sending it: rejected with the reason, the amount back in the balance. */
export function payoutSendFailed(tx: Executor, id: string, why: string, now: Date): Promise<PayoutRow> {
  return systemMove(tx, id, { to: 'rejected', note: payoutSendFailedNote(why) }, now);
}
