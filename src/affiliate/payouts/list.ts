// Reading referral payouts: newest first, but the open ones (requested, processing) first of all,
// soonest due first (spec 4.4 "Referral payouts").
import { and, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../platform/db/index.ts';
import { notFound } from '../../platform/errors.ts';
import { listParams } from '../../platform/list-params.ts';
import { isIdShaped, oneOfFilter } from '../../platform/fields.ts';
import { merchants } from '../../accounts/index.ts';
import { affiliatePayouts } from '../schema.ts';
import { affiliatePayoutJson } from '../json.ts';
import { STATUS_MESSAGE } from './errors.ts';
import { OPEN_STATUSES, PAYOUT_STATUSES } from './moves.ts';

const isOpen = sql`${affiliatePayouts.status} in (${sql.join(OPEN_STATUSES.map((s) => sql`${s}`), sql`, `)})`;
const ORDER: SQL[] = [
  sql`case when ${isOpen} then 0 else 1 end`, sql`case when ${isOpen} then ${affiliatePayouts.dueAt} end asc`,
  desc(affiliatePayouts.createdAt), desc(affiliatePayouts.id),
];

/** `{payouts, total, limit, offset}` of one affiliate, or of every affiliate (the operator) when null. */
export async function listPayouts(db: Database, affiliateId: string | null, query: Record<string, unknown>): Promise<Record<string, unknown>> {
  const status = oneOfFilter(query.status, PAYOUT_STATUSES, STATUS_MESSAGE);
  const { limit, offset } = listParams(query);
  const where = and(...(affiliateId ? [eq(affiliatePayouts.affiliateId, affiliateId)] : []), ...(status ? [inArray(affiliatePayouts.status, [status])] : []));
  const rows = await db.orm.select({ p: affiliatePayouts, name: merchants.name }).from(affiliatePayouts)
    .innerJoin(merchants, eq(merchants.id, affiliatePayouts.affiliateId)).where(where).orderBy(...ORDER).limit(limit).offset(offset);
  const [{ n }] = await db.orm.select({ n: count() }).from(affiliatePayouts).where(where);
  return { payouts: rows.map((x) => affiliatePayoutJson(x.p, x.name)), total: Number(n), limit, offset };
}

export async function getPayout(db: Database, affiliateId: string, id: string): Promise<Record<string, unknown>> {
  if (!isIdShaped(id)) throw notFound();
  const [row] = await db.orm.select({ p: affiliatePayouts, name: merchants.name }).from(affiliatePayouts)
    .innerJoin(merchants, eq(merchants.id, affiliatePayouts.affiliateId))
    .where(and(eq(affiliatePayouts.id, id), eq(affiliatePayouts.affiliateId, affiliateId)));
  if (!row) throw notFound();
  return affiliatePayoutJson(row.p, row.name);
}

