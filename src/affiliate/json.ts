// The objects of spec part 2 "Referral payout object", "Referral and commission" and the referral
// balance of CONTRACT.md `GET /merchant/affiliate`: USDT_TRC20 amounts without trailing zeros,
// optional fields absent (a referral's `earns_until` is null when it earns for as long as the
// referred merchant uses the service).
import { formatUnits, formatUsd } from '../money/index.ts';
import { REFERRAL_CHAIN, REFERRAL_DECIMALS, REFERRAL_TOKEN } from './terms.ts';
import type { AffiliateEntryRow, AffiliatePayoutRow, AffiliateRow, CommissionRow, ReferralRow } from './schema.ts';

export const usdt = (units: bigint): string => formatUnits(units, REFERRAL_DECIMALS);
const iso = (d: Date): string => d.toISOString();
const opt = <T>(key: string, v: T | null | undefined): Record<string, T> => (v === null || v === undefined ? {} : { [key]: v });

export function referralJson(r: ReferralRow, merchantName: string): Record<string, unknown> {
  return {
    merchant_id: r.merchantId, merchant_name: merchantName, affiliate_id: r.affiliateId, code: r.code,
    signed_up_at: iso(r.signedUpAt), status: r.status, ...opt('void_reason', r.voidReason), ...opt('voided_at', r.voidedAt && iso(r.voidedAt)),
    ...opt('attached_by', r.attachedBy), created_at: iso(r.createdAt), earns_until: r.earnsUntil ? iso(r.earnsUntil) : null,
    payments: r.payments, volume_usd: formatUsd(r.volumeUsd), earned_usd: usdt(r.earned), ...opt('last_earned_at', r.lastEarnedAt && iso(r.lastEarnedAt)),
  };
}

export function commissionJson(c: CommissionRow, merchantName: string): Record<string, unknown> {
  return {
    id: c.id, affiliate_id: c.affiliateId, merchant_id: c.merchantId, merchant_name: merchantName, payment_id: c.paymentId,
    deposit_usd: formatUsd(c.depositUsd), fee_usd: formatUsd(c.feeUsd), rate_bps: c.rateBps, token: REFERRAL_TOKEN,
    amount: usdt(c.amount), created_at: iso(c.createdAt),
  };
}

export function affiliateBalanceJson(a: AffiliateRow): Record<string, unknown> {
  return { token: REFERRAL_TOKEN, chain: REFERRAL_CHAIN, available: usdt(a.available), pending_payout: usdt(a.pendingPayout), paid_out: usdt(a.paidOut) };
}

export function affiliatePayoutJson(p: AffiliatePayoutRow, merchantName: string): Record<string, unknown> {
  return {
    id: p.id, affiliate_id: p.affiliateId, merchant_name: merchantName, token: REFERRAL_TOKEN, chain: REFERRAL_CHAIN,
    amount: usdt(p.amount), network_fee: usdt(p.networkFee), send_amount: usdt(p.sendAmount), ...opt('address_id', p.addressId),
    address: p.address, status: p.status, due_at: iso(p.dueAt), requested_by: p.requestedBy,
    ...opt('tx_id', p.txId), ...opt('note', p.note), ...opt('approved_at', p.approvedAt && iso(p.approvedAt)),
    ...opt('paid_at', p.paidAt && iso(p.paidAt)), ...opt('rejected_at', p.rejectedAt && iso(p.rejectedAt)),
    ...opt('canceled_by', p.canceledBy), ...opt('canceled_at', p.canceledAt && iso(p.canceledAt)),
    created_at: iso(p.createdAt), updated_at: iso(p.updatedAt),
  };
}

/** An entry of the referral balance's statement (the answer of `/admin/affiliate/adjustments`). */
export function affiliateEntryJson(e: AffiliateEntryRow): Record<string, unknown> {
  return {
    id: e.id, merchant_id: e.affiliateId, type: e.type, token: REFERRAL_TOKEN, chain: REFERRAL_CHAIN, amount: usdt(e.amount),
    usd_amount: usdt(e.amount), reference: e.reference, ...opt('note', e.note), created_at: iso(e.createdAt),
  };
}
