// What every change of a referral payout tells: the affiliate's dashboard (`affiliate:payout`),
// the team (notifications "Payout requested", "Payout paid", "Payout rejected" of spec 6.3), and
// the merchant's audit log (`affiliate_payout.<status>`).
import { eq } from 'drizzle-orm';
import type { Executor } from '../../platform/db/index.ts';
import { appendEvent } from '../../events/index.ts';
import { recordAudit, type Actor } from '../../audit/index.ts';
import { raiseNotification } from '../../notifications/index.ts';
import { merchants } from '../../accounts/index.ts';
import { AFFILIATE_EVENTS } from '../balance.ts';
import { affiliatePayoutJson, usdt } from '../json.ts';
import { REFERRAL_TOKEN } from '../terms.ts';
import type { AffiliatePayoutRow } from '../schema.ts';

/** The title of a referral payout's request (spec 6.3), which is also e-mailed by default (src/mail). */
export const PAYOUT_REQUESTED_TITLE = 'Payout requested';

function notice(p: AffiliatePayoutRow): { title: string; body: string } | null {
  const what = `referral payout of ${usdt(p.amount)} ${REFERRAL_TOKEN} to ${p.address}`;
  switch (p.status) {
    case 'requested': return { title: PAYOUT_REQUESTED_TITLE, body: `A ${what} was requested; it is due by ${p.dueAt.toISOString()}.` };
    case 'paid': return { title: 'Payout paid', body: `The ${what} was paid (transaction ${p.txId}).` };
    case 'rejected': return { title: 'Payout rejected', body: `The ${what} was rejected: ${p.note}. The amount is back in your referral balance.` };
    default: return null;
  }
}

/** `note`: why, in the audit entry (a payout canceled because its address was deleted). */
export async function payoutChanged(tx: Executor, p: AffiliatePayoutRow, actor: Actor, at: Date, note?: string): Promise<Record<string, unknown>> {
  const [m] = await tx.select({ name: merchants.name }).from(merchants).where(eq(merchants.id, p.affiliateId));
  const json = affiliatePayoutJson(p, m?.name ?? '');
  await appendEvent(tx, { type: AFFILIATE_EVENTS.payout, livemode: true, merchantId: p.affiliateId, data: json, at });
  const n = notice(p);
  if (n) await raiseNotification(tx, { merchantId: p.affiliateId, category: 'affiliates', subject: p.id, at, ...n });
  await recordAudit(tx, { merchantId: p.affiliateId, action: `affiliate_payout.${p.status}`, actor, subject: p.id, after: json, at, ...(note ? { note } : {}) });
  return json;
}
