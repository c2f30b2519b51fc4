// The moves of spec 3 "Referral payout status" after the request: cancel (owner or finance, only
// while requested), process, paid and reject (the operator). Each is a compare-and-set on the
// status under the referral balance's lock, with its balance move and events.
import { and, eq, inArray } from 'drizzle-orm';
import type { Database, Executor } from '../../platform/db/index.ts';
import { conflict, notFound } from '../../platform/errors.ts';
import { isIdShaped } from '../../platform/fields.ts';
import type { Actor } from '../../audit/index.ts';
import type { AddressRetirement } from '../../settlement/index.ts';
import { lockAffiliate, moveBalance, type BalanceMove } from '../balance.ts';
import { affiliatePayouts, type AffiliatePayoutRow } from '../schema.ts';
import { PAYOUT_STATE_CONFLICT } from './errors.ts';
import { payoutChanged } from './events.ts';

export const PAYOUT_STATUSES = ['requested', 'processing', 'paid', 'rejected', 'canceled'] as const;
export const OPEN_STATUSES = ['requested', 'processing'] as const;

export type PayoutMove =
  | { to: 'canceled'; by: string }
  | { to: 'processing' }
  | { to: 'paid'; txId: string; note?: string }
  | { to: 'rejected'; note: string };

const FROM: Record<PayoutMove['to'], readonly string[]> = {
  canceled: ['requested'], processing: ['requested'], paid: ['processing'], rejected: OPEN_STATUSES,
};

function changes(move: PayoutMove, now: Date): Partial<AffiliatePayoutRow> {
  switch (move.to) {
    case 'canceled': return { canceledBy: move.by, canceledAt: now };
    case 'processing': return { approvedAt: now };
    case 'paid': return { txId: move.txId, paidAt: now, ...(move.note !== undefined ? { note: move.note } : {}) };
    case 'rejected': return { note: move.note, rejectedAt: now };
  }
}

/** The referral balance's side of a move: back to `available`, or on to `paid_out`. */
function balanceMove(p: AffiliatePayoutRow, move: PayoutMove): BalanceMove | null {
  if (move.to === 'canceled' || move.to === 'rejected') {
    return { entry: { type: 'payout_release', amount: p.amount, reference: p.id, ...(move.to === 'rejected' ? { note: move.note } : {}) }, pendingPayout: -p.amount };
  }
  if (move.to === 'paid') return { pendingPayout: -p.amount, paidOut: p.amount };
  return null;
}

/** Moves a payout of `affiliateId` (any affiliate's when null: the operator); 404 unknown, 409 wrong state. */
export async function movePayout(db: Database, id: string, affiliateId: string | null, move: PayoutMove, actor: Actor, now: Date): Promise<Record<string, unknown>> {
  if (!isIdShaped(id)) throw notFound();
  return db.transaction(async (tx) => {
    const mine = and(eq(affiliatePayouts.id, id), ...(affiliateId ? [eq(affiliatePayouts.affiliateId, affiliateId)] : []));
    const [found] = await tx.select({ affiliateId: affiliatePayouts.affiliateId }).from(affiliatePayouts).where(mine);
    if (!found) throw notFound();
    // The balance first, as every change of it does, then the payout's status under that lock.
    const affiliate = await lockAffiliate(tx, found.affiliateId, now);
    const [row] = await tx.update(affiliatePayouts).set({ status: move.to, updatedAt: now, ...changes(move, now) })
      .where(and(mine, inArray(affiliatePayouts.status, [...FROM[move.to]]))).returning();
    if (!row) throw conflict(PAYOUT_STATE_CONFLICT);
    const json = await payoutChanged(tx, row, actor, now);
    const balance = balanceMove(row, move);
    if (balance) await moveBalance(tx, affiliate, balance, now);
    return json;
  });
}

/**
 * The payout address `addressId` of `affiliateId` is being deleted or changed (in `tx`, before the
 * address's row changes): its referral payouts still requested, which keep the old address, are
 * canceled by the member who retired it, the amounts back in `available`, as merchant payouts to it
 * are; a processing one may be on its way and goes on. The referral balance is locked first, as a
 * payout request locks it before it reads the address: a request at the same moment is either seen
 * here or finds the address gone (or not active yet, changed).
 */
export async function cancelPayoutsTo(tx: Executor, affiliateId: string, addressId: string, who: { by: string; actor: Actor; reason: AddressRetirement }, now: Date): Promise<void> {
  const affiliate = await lockAffiliate(tx, affiliateId, now);
  const move: PayoutMove = { to: 'canceled', by: who.by };
  const rows = await tx.update(affiliatePayouts).set({ status: 'canceled', updatedAt: now, ...changes(move, now) })
    .where(and(eq(affiliatePayouts.affiliateId, affiliateId), eq(affiliatePayouts.addressId, addressId), inArray(affiliatePayouts.status, [...FROM.canceled])))
    .returning();
  let balance = affiliate;
  for (const row of rows) {
    await payoutChanged(tx, row, who.actor, now, `its payout address was ${who.reason}`);
    balance = (await moveBalance(tx, balance, balanceMove(row, move)!, now)).row;
  }
}
