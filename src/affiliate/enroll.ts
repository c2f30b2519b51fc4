// Joining the program: every merchant becomes an affiliate with a code at signup, and a signup
// with another active merchant's code (any case) is that merchant's referral. An unknown,
// suspended or own code is ignored, never refused. The operator may attach a referral by hand.
import { eq } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/index.ts';
import { badRequest } from '../platform/errors.ts';
import { isIdShaped } from '../platform/fields.ts';
import type { Actor } from '../audit/index.ts';
import { merchants, type SignupEnrollment } from '../accounts/index.ts';
import { UNKNOWN_MERCHANT } from '../settlement/index.ts';
import { ensureAffiliate } from './balance.ts';
import { normalizeCode } from './code.ts';
import { activeAffiliateByCode, createReferral } from './referrals.ts';

export const UNKNOWN_CODE = 'unknown referral code';
export const OWN_CODE = 'a merchant cannot be its own referral';
export const ATTACHED_BY_ADMIN = 'admin';

/** The signup hook (accounts room): runs in the signup transaction. */
export async function enroll(tx: Executor, s: SignupEnrollment, months: number): Promise<void> {
  await ensureAffiliate(tx, s.merchant.id, s.at);
  const code = normalizeCode(s.referralCode);
  const affiliateId = code ? await activeAffiliateByCode(tx, code) : null;
  if (!code || !affiliateId || affiliateId === s.merchant.id) return;
  await createReferral(tx, {
    merchantId: s.merchant.id, signedUpAt: s.merchant.createdAt, affiliateId, code, attachedBy: null, months, at: s.at,
    actor: { kind: 'merchant', id: s.user.id, merchant_id: s.merchant.id, email: s.user.email, role: s.user.role, ...s.origin },
  });
}

/** `POST /admin/referrals {merchant_id, code}`: a referral attached by hand (`attached_by` = `admin`). */
export async function attachReferral(db: Database, body: Record<string, unknown>, months: number, actor: Actor, now: Date): Promise<Record<string, unknown>> {
  if (!isIdShaped(body.merchant_id)) throw badRequest(UNKNOWN_MERCHANT);
  const merchantId = body.merchant_id;
  const code = normalizeCode(body.code);
  if (!code) throw badRequest(UNKNOWN_CODE);
  return db.transaction(async (tx) => {
    const [m] = await tx.select({ createdAt: merchants.createdAt }).from(merchants).where(eq(merchants.id, merchantId));
    if (!m) throw badRequest(UNKNOWN_MERCHANT);
    const affiliateId = await activeAffiliateByCode(tx, code);
    if (!affiliateId) throw badRequest(UNKNOWN_CODE);
    if (affiliateId === merchantId) throw badRequest(OWN_CODE);
    return createReferral(tx, { merchantId, signedUpAt: m.createdAt, affiliateId, code, attachedBy: ATTACHED_BY_ADMIN, months, actor, at: now });
  });
}
