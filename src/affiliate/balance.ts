// The referral balance (USDT_TRC20), apart from the merchant's own balances: one affiliates row
// per merchant, locked while it changes, with its statement (affiliate_entries: `available` is
// always their sum) and the `affiliate:balance` dashboard event, in the caller's transaction.
import { eq } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import { newId } from '../platform/ids.ts';
import { appendEvent } from '../events/index.ts';
import { affiliateEntries, affiliates, type AffiliateEntryRow, type AffiliateRow } from './schema.ts';
import { affiliateBalanceJson } from './json.ts';
import { newReferralCode } from './code.ts';

/** The dashboard events of the referral program (spec 6.3; owners and finance). */
export const AFFILIATE_EVENTS = {
  referral: 'affiliate:referral',
  commission: 'affiliate:commission',
  balance: 'affiliate:balance',
  payout: 'affiliate:payout',
} as const;

export type EntryType = 'commission' | 'payout_hold' | 'payout_release' | 'adjustment';

/** Adds the merchant's affiliate row with a fresh code; nothing when a row (or the code) exists already. */
async function addAffiliate(ex: Executor, merchantId: string, at: Date): Promise<void> {
  await ex.insert(affiliates).values({
    merchantId, code: newReferralCode(), clicks: 0, available: 0n, pendingPayout: 0n, paidOut: 0n, createdAt: at, updatedAt: at,
  }).onConflictDoNothing();
}

/**
 * The merchant's affiliate row, made with a fresh code when it has none yet (signup makes it; a
 * merchant made another way gets it on first use). A code already taken is drawn again.
 */
export async function ensureAffiliate(ex: Executor, merchantId: string, at: Date): Promise<AffiliateRow> {
  for (;;) {
    const [row] = await ex.select().from(affiliates).where(eq(affiliates.merchantId, merchantId));
    if (row) return row;
    await addAffiliate(ex, merchantId, at);
  }
}

/**
 * The affiliate row, locked until the transaction ends (changes to one referral balance queue up).
 * One locked read: the row is made (as by ensureAffiliate) only when that read finds none.
 */
export async function lockAffiliate(tx: Executor, merchantId: string, at: Date): Promise<AffiliateRow> {
  for (;;) {
    const [row] = await tx.select().from(affiliates).where(eq(affiliates.merchantId, merchantId)).for('update');
    if (row) return row;
    await addAffiliate(tx, merchantId, at);
  }
}

export interface BalanceMove {
  /** Signed change of `available`: written to the statement as an entry of `type`. */
  entry?: { type: EntryType; amount: bigint; reference: string; note?: string };
  pendingPayout?: bigint;
  paidOut?: bigint;
}

/** Moves a locked referral balance and tells the dashboard (`affiliate:balance`). */
export async function moveBalance(tx: Executor, a: AffiliateRow, move: BalanceMove, at: Date): Promise<{ row: AffiliateRow; entry: AffiliateEntryRow | null }> {
  const [row] = await tx.update(affiliates).set({
    available: a.available + (move.entry?.amount ?? 0n), pendingPayout: a.pendingPayout + (move.pendingPayout ?? 0n),
    paidOut: a.paidOut + (move.paidOut ?? 0n), updatedAt: at,
  }).where(eq(affiliates.merchantId, a.merchantId)).returning();
  let entry: AffiliateEntryRow | null = null;
  if (move.entry) {
    [entry] = await tx.insert(affiliateEntries).values({
      id: newId('afe', at), affiliateId: a.merchantId, type: move.entry.type, amount: move.entry.amount,
      reference: move.entry.reference, note: move.entry.note ?? null, createdAt: at,
    }).returning();
  }
  await appendEvent(tx, { type: AFFILIATE_EVENTS.balance, livemode: true, merchantId: a.merchantId, data: affiliateBalanceJson(row), at });
  return { row, entry };
}
