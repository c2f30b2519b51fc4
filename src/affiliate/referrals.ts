// Referrals: made at signup with another active merchant's code or attached by the operator,
// voided by the operator (spec 3 "Referral status"). Each change is audited in both merchants'
// logs (`referral.created`, `referral.voided`) and told to the affiliate (`affiliate:referral`).
import { and, count, desc, eq } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/index.ts';
import { conflict, notFound } from '../platform/errors.ts';
import { appendEvent } from '../events/index.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { merchants } from '../accounts/index.ts';
import { listParams } from '../platform/list-params.ts';
import { oneOfFilter } from '../platform/fields.ts';
import { dec } from '../money/index.ts';
import { affiliates, referrals, type ReferralRow } from './schema.ts';
import { referralJson } from './json.ts';
import { earnsUntil } from './terms.ts';
import { AFFILIATE_EVENTS } from './balance.ts';

export const REFERRAL_STATUSES = ['active', 'void'] as const;
export const STATUS_MESSAGE = 'status must be "active" or "void"';
export const REFERRED_ALREADY = 'this merchant has a referral already';
export const VOID_ALREADY = 'this referral is void already';

/** The affiliate whose code this is, when its merchant is active. */
export async function activeAffiliateByCode(ex: Executor, code: string): Promise<string | null> {
  const [row] = await ex.select({ id: affiliates.merchantId }).from(affiliates).innerJoin(merchants, eq(merchants.id, affiliates.merchantId))
    .where(and(eq(affiliates.code, code), eq(merchants.status, 'active'))).limit(1);
  return row?.id ?? null;
}

const nameOf = async (ex: Executor, merchantId: string): Promise<string> =>
  (await ex.select({ name: merchants.name }).from(merchants).where(eq(merchants.id, merchantId)))[0]?.name ?? '';

/**
 * The actor as another merchant's log shows it: a member of the referred merchant (who signed up)
 * appears to the affiliate as that merchant only, without the member's id, email, role or address.
 */
function actorSeenBy(merchantId: string, actor: Actor): Actor {
  if (actor.merchant_id === undefined || actor.merchant_id === merchantId) return actor;
  return { kind: actor.kind, merchant_id: actor.merchant_id };
}

/** What the referral program counted for the affiliate: its earnings from the referral (CONTRACT.md "Referral program"). */
const AFFILIATE_FIGURES = ['payments', 'volume_usd', 'earned_usd', 'last_earned_at'];

/**
 * The referral as a merchant's log shows it: whole to the affiliate; to the referred merchant without
 * what the affiliate earned from it (the program's figures are the affiliate's, read by its owners
 * and finance only).
 */
function referralSeenBy(merchantId: string, row: ReferralRow, json: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (json === undefined || merchantId === row.affiliateId) return json;
  return Object.fromEntries(Object.entries(json).filter(([k]) => !AFFILIATE_FIGURES.includes(k)));
}

/** Audits a referral change in the referred merchant's log and the affiliate's, and tells the affiliate. */
async function recorded(tx: Executor, row: ReferralRow, action: string, actor: Actor, at: Date, before?: Record<string, unknown>, note?: string): Promise<Record<string, unknown>> {
  const json = referralJson(row, await nameOf(tx, row.merchantId));
  for (const merchantId of [row.merchantId, row.affiliateId]) {
    await recordAudit(tx, {
      merchantId, action, actor: actorSeenBy(merchantId, actor), subject: row.merchantId,
      before: referralSeenBy(merchantId, row, before), after: referralSeenBy(merchantId, row, json), note, at,
    });
  }
  await appendEvent(tx, { type: AFFILIATE_EVENTS.referral, livemode: true, merchantId: row.affiliateId, data: json, at });
  return json;
}

export interface NewReferral {
  merchantId: string;
  signedUpAt: Date;
  affiliateId: string;
  code: string;
  attachedBy: string | null;
  months: number;
  actor: Actor;
  at: Date;
}

/** Writes an active referral; 409 when the merchant has one (of any status) already. */
export async function createReferral(tx: Executor, r: NewReferral): Promise<Record<string, unknown>> {
  const [row] = await tx.insert(referrals).values({
    merchantId: r.merchantId, affiliateId: r.affiliateId, code: r.code, signedUpAt: r.signedUpAt, status: 'active',
    voidReason: null, voidedAt: null, attachedBy: r.attachedBy, earnsUntil: earnsUntil(r.signedUpAt, r.months),
    payments: 0, volumeUsd: dec(0), earned: 0n, lastEarnedAt: null, createdAt: r.at,
  }).onConflictDoNothing().returning();
  if (!row) throw conflict(REFERRED_ALREADY);
  return recorded(tx, row, 'referral.created', r.actor, r.at);
}

/** The operator voids a referral: it earns nothing more. */
export async function voidReferral(db: Database, merchantId: string, reason: string, actor: Actor, now: Date): Promise<Record<string, unknown>> {
  return db.transaction(async (tx) => {
    const [before] = await tx.select().from(referrals).where(eq(referrals.merchantId, merchantId)).for('update');
    if (!before) throw notFound();
    if (before.status === 'void') throw conflict(VOID_ALREADY);
    const [row] = await tx.update(referrals).set({ status: 'void', voidReason: reason, voidedAt: now })
      .where(eq(referrals.merchantId, merchantId)).returning();
    return recorded(tx, row, 'referral.voided', actor, now, referralJson(before, await nameOf(tx, merchantId)), reason);
  });
}

/** `{referrals, total, limit, offset}` of an affiliate, newest first; query `status`, `limit`, `offset`. */
export async function listReferrals(db: Database, affiliateId: string, query: Record<string, unknown>): Promise<Record<string, unknown>> {
  const status = oneOfFilter(query.status, REFERRAL_STATUSES, STATUS_MESSAGE);
  const { limit, offset } = listParams(query);
  const where = and(eq(referrals.affiliateId, affiliateId), ...(status ? [eq(referrals.status, status as string)] : []));
  const rows = await db.orm.select({ r: referrals, name: merchants.name }).from(referrals).innerJoin(merchants, eq(merchants.id, referrals.merchantId))
    .where(where).orderBy(desc(referrals.createdAt), desc(referrals.merchantId)).limit(limit).offset(offset);
  const [{ n }] = await db.orm.select({ n: count() }).from(referrals).where(where);
  return { referrals: rows.map((x) => referralJson(x.r, x.name)), total: Number(n), limit, offset };
}

/** How many referrals of each status an affiliate has. */
export async function referralCounts(ex: Executor, affiliateId: string): Promise<{ active: number; void: number }> {
  const rows = await ex.select({ status: referrals.status, n: count() }).from(referrals).where(eq(referrals.affiliateId, affiliateId)).groupBy(referrals.status);
  const of = (s: string) => Number(rows.find((r) => r.status === s)?.n ?? 0);
  return { active: of('active'), void: of('void') };
}
