// The ledger invariant: every stored balance equals what its ledger says. `available` is the sum
// of the balance's entries; `pending_payout` the amounts of its open payouts. Recomputed from
// scratch, in one statement, so it also finds entries with no balance row and the reverse.
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../platform/db/index.ts';

export interface LedgerMismatch {
  merchant_id: string;
  livemode: boolean;
  token: string;
  stored_available: string;
  ledger_available: string;
  stored_pending: string;
  open_payouts: string;
}

export async function checkLedger(ex: Executor): Promise<LedgerMismatch[]> {
  return queryRows<LedgerMismatch>(ex, sql`
    with l as (
      select merchant_id, livemode, token, sum(amount) as total from ledger_entries group by 1, 2, 3
    ), p as (
      select merchant_id, livemode, from_token as token, sum(amount) as total from payouts
      where status in ('requested', 'approved') group by 1, 2, 3
    ), k as (
      select merchant_id, livemode, token from balances union select merchant_id, livemode, token from l
      union select merchant_id, livemode, token from p
    )
    select k.merchant_id, k.livemode, k.token,
      coalesce(b.available, 0)::text as stored_available, coalesce(l.total, 0)::text as ledger_available,
      coalesce(b.pending_payout, 0)::text as stored_pending, coalesce(p.total, 0)::text as open_payouts
    from k
    left join balances b using (merchant_id, livemode, token)
    left join l using (merchant_id, livemode, token)
    left join p using (merchant_id, livemode, token)
    where coalesce(b.available, 0) <> coalesce(l.total, 0) or coalesce(b.pending_payout, 0) <> coalesce(p.total, 0)
      or coalesce(b.available, 0) < 0 or coalesce(b.pending_payout, 0) < 0
    order by 1, 2, 3`);
}
