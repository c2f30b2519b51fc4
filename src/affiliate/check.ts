// The referral balance's invariant, like the ledger's (npm run check:ledger): `available` is the
// sum of its entries, `pending_payout` the amounts of its open payouts, `paid_out` those of its
// paid ones. Recomputed from scratch in one statement.
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../platform/db/index.ts';

export interface ReferralBalanceMismatch {
  merchant_id: string;
  stored_available: string;
  entries: string;
  stored_pending: string;
  open_payouts: string;
  stored_paid_out: string;
  paid_payouts: string;
}

export async function checkReferralBalances(ex: Executor): Promise<ReferralBalanceMismatch[]> {
  return queryRows<ReferralBalanceMismatch>(ex, sql`
    with e as (select affiliate_id as merchant_id, sum(amount) as total from affiliate_entries group by 1),
    o as (select affiliate_id as merchant_id, sum(amount) as total from affiliate_payouts where status in ('requested', 'processing') group by 1),
    p as (select affiliate_id as merchant_id, sum(amount) as total from affiliate_payouts where status = 'paid' group by 1)
    select a.merchant_id, a.available::text as stored_available, coalesce(e.total, 0)::text as entries,
      a.pending_payout::text as stored_pending, coalesce(o.total, 0)::text as open_payouts,
      a.paid_out::text as stored_paid_out, coalesce(p.total, 0)::text as paid_payouts
    from affiliates a
    left join e using (merchant_id) left join o using (merchant_id) left join p using (merchant_id)
    where a.available <> coalesce(e.total, 0) or a.pending_payout <> coalesce(o.total, 0) or a.paid_out <> coalesce(p.total, 0)
    order by 1`);
}
