// Commissions (spec 2 "Referral and commission"): one per live deposit of an actively referred
// merchant, credited to the affiliate's referral balance when the service's fee on it is final
// (the settlement port, in the transaction that makes it final: the settlement's, or its completion's
// when the real network fee may still change it; `fee.at` is that moment). Keyed `<payment id>:<transaction id>`,
// so a settlement told twice credits once.
import { and, count, desc, eq, ne, sql } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/index.ts';
import { appendEvent } from '../events/index.ts';
import { listParams } from '../platform/list-params.ts';
import { merchants } from '../accounts/index.ts';
import type { FinalServiceFee } from '../settlement/index.ts';
import { commissions, referrals } from './schema.ts';
import { commissionJson } from './json.ts';
import { commissionUnits } from './terms.ts';
import { AFFILIATE_EVENTS, lockAffiliate, moveBalance } from './balance.ts';

export async function creditCommission(tx: Executor, fee: FinalServiceFee, rateBps: number): Promise<void> {
  const [ref] = await tx.select().from(referrals).where(eq(referrals.merchantId, fee.merchantId)).for('update');
  if (!ref || ref.status !== 'active' || (ref.earnsUntil !== null && fee.at >= ref.earnsUntil)) return;
  const amount = commissionUnits(fee.feeUsd, rateBps);
  const [row] = await tx.insert(commissions).values({
    id: fee.reference, affiliateId: ref.affiliateId, merchantId: fee.merchantId, paymentId: fee.paymentId,
    depositUsd: fee.depositUsd, feeUsd: fee.feeUsd, rateBps, amount, createdAt: fee.at,
  }).onConflictDoNothing().returning();
  if (!row) return;
  const [earlier] = await tx.select({ n: count() }).from(commissions).where(and(eq(commissions.paymentId, fee.paymentId), ne(commissions.id, row.id)));
  await tx.update(referrals).set({
    payments: sql`${referrals.payments} + ${Number(earlier.n) === 0 ? 1 : 0}`,
    volumeUsd: sql`${referrals.volumeUsd} + ${fee.depositUsd.toFixed()}::numeric`,
    earned: sql`${referrals.earned} + ${amount.toString()}::numeric`, lastEarnedAt: fee.at,
  }).where(eq(referrals.merchantId, fee.merchantId));
  const [m] = await tx.select({ name: merchants.name }).from(merchants).where(eq(merchants.id, fee.merchantId));
  await appendEvent(tx, { type: AFFILIATE_EVENTS.commission, livemode: true, merchantId: ref.affiliateId, data: commissionJson(row, m?.name ?? ''), at: fee.at });
  if (amount > 0n) {
    const affiliate = await lockAffiliate(tx, ref.affiliateId, fee.at);
    await moveBalance(tx, affiliate, { entry: { type: 'commission', amount, reference: row.id } }, fee.at);
  }
}

/** `{commissions, total, limit, offset}` of an affiliate, newest first. */
export async function listCommissions(db: Database, affiliateId: string, query: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { limit, offset } = listParams(query);
  const where = eq(commissions.affiliateId, affiliateId);
  const rows = await db.orm.select({ c: commissions, name: merchants.name }).from(commissions).innerJoin(merchants, eq(merchants.id, commissions.merchantId))
    .where(where).orderBy(desc(commissions.createdAt), desc(commissions.id)).limit(limit).offset(offset);
  const [{ n }] = await db.orm.select({ n: count() }).from(commissions).where(where);
  return { commissions: rows.map((x) => commissionJson(x.c, x.name)), total: Number(n), limit, offset };
}
