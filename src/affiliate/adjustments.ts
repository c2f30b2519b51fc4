// `POST /admin/affiliate/adjustments` (CONTRACT.md operator API): the service's team credits or
// debits a merchant's referral balance, never below zero; one `adjustment` entry, audited with
// actor kind admin.
import { eq } from 'drizzle-orm';
import type { Database } from '../platform/db/index.ts';
import { badRequest } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { isIdShaped } from '../platform/fields.ts';
import { NOTE_MAX, requireCapped } from '../platform/text-input.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { merchants } from '../accounts/index.ts';
import { NOTE_REQUIRED, UNKNOWN_MERCHANT } from '../settlement/index.ts';
import { amountText, parseUnits } from '../money/index.ts';
import { lockAffiliate, moveBalance } from './balance.ts';
import { affiliateEntryJson } from './json.ts';
import { REFERRAL_DECIMALS, REFERRAL_TOKEN } from './terms.ts';

export const ADJUST_AMOUNT_INVALID = `amount must be a non-zero signed decimal of ${REFERRAL_TOKEN} with at most ${REFERRAL_DECIMALS} decimals (e.g. "-1.5")`;
export const ADJUST_BELOW_ZERO = 'the adjustment would take the referral balance below zero';

function signedUnits(v: unknown): bigint {
  const text = amountText(v) ?? '';
  const m = /^([+-]?)(\d+(?:\.\d+)?)$/.exec(text);
  const units = m ? parseUnits(m[2], REFERRAL_DECIMALS) : undefined;
  if (units === undefined || units === 0n) throw badRequest(ADJUST_AMOUNT_INVALID);
  return m![1] === '-' ? -units : units;
}

export async function adjustReferralBalance(db: Database, body: Record<string, unknown>, actor: Actor, now: Date): Promise<Record<string, unknown>> {
  if (!isIdShaped(body.merchant_id)) throw badRequest(UNKNOWN_MERCHANT);
  const merchantId = body.merchant_id;
  const amount = signedUnits(body.amount);
  const note = requireCapped('note', body.note, NOTE_REQUIRED, NOTE_MAX);
  return db.transaction(async (tx) => {
    const [m] = await tx.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchantId));
    if (!m) throw badRequest(UNKNOWN_MERCHANT);
    const affiliate = await lockAffiliate(tx, merchantId, now);
    if (affiliate.available + amount < 0n) throw badRequest(ADJUST_BELOW_ZERO);
    const { entry } = await moveBalance(tx, affiliate, { entry: { type: 'adjustment', amount, reference: newId('adj', now), note } }, now);
    const json = affiliateEntryJson(entry!);
    await recordAudit(tx, { merchantId, action: 'referral_balance.adjusted', actor, subject: merchantId, after: json, note, at: now });
    return json;
  });
}
