// Scheduled settlement (spec 1 Settlement modes, `scheduled`): the whole USDT_TRC20 balance is
// paid out to the merchant's USDT_TRC20 payout address in use, `instant` (after each credit),
// `daily` or `weekly` (Mondays, UTC; a Monday no run reached at the next run). A balance under the minimum payout waits.
import { and, eq, ne, or, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../platform/db/index.ts';
import type { MarketData } from '../../market/index.ts';
import { merchants } from '../../accounts/schema.ts';
import { addressFor, BALANCE_TOKEN } from '../planner.ts';
import { addressesInForce, planAddress } from '../address-store.ts';
import { lockBalance } from '../balance-store.ts';
import { ledgerEntries, type PayoutRow } from '../schema.ts';
import { createPayoutOrWait } from './payout-store.ts';
import type { OwnAddressCheck } from '../ports.ts';
import { underMinimumPayout } from './payout-math.ts';

export const REQUESTED_BY_SCHEDULER = 'scheduler';
const DAY_MS = 86_400_000;

const startOfUtcDay = (d: Date): number => Math.floor(d.getTime() / DAY_MS) * DAY_MS;
/** Monday 00:00 UTC of `d`'s week. */
const startOfUtcWeek = (d: Date): number => startOfUtcDay(d) - ((d.getUTCDay() + 6) % 7) * DAY_MS;

/**
 * Whether a merchant on `schedule`, last paid out at `last`, is due a payout at `now`, in a run that
 * makes up for the hourly ticks from `since` (recurring.ts: `now` unless ticks were missed while no
 * process ran). `daily`: from 00:00 UTC until paid that day (a balance under the minimum is paid
 * later that day once it reaches it; a missed day at the next run). `weekly`: on Mondays (UTC), in a
 * run that covers part of this week's Monday, until paid that week: a balance under the minimum on
 * Monday waits for the next Monday, and a Monday no run reached (the service down) is made up once
 * by the first run after it, however many weeks were missed.
 */
export function payoutDue(schedule: string, last: Date | null, now: Date, since: Date = now): boolean {
  if (schedule === 'instant') return true;
  if (schedule === 'weekly') {
    const monday = startOfUtcWeek(now);
    return since.getTime() < monday + DAY_MS && (last === null || last.getTime() < monday);
  }
  return last === null || last.getTime() < startOfUtcDay(now);
}

/** Pays out the merchant's whole live USDT_TRC20 balance when it reaches $10 and an address is in use. */
export async function scheduledPayout(tx: Executor, merchantId: string, market: MarketData, ownAddresses: OwnAddressCheck, now: Date): Promise<PayoutRow | null> {
  const rows = await addressesInForce(tx, merchantId, true);
  const target = addressFor(BALANCE_TOKEN, rows.map(planAddress), now, now);
  if (target.state !== 'in_use') return null;
  const balance = await lockBalance(tx, { merchantId, livemode: true }, BALANCE_TOKEN, now);
  if (underMinimumPayout(BALANCE_TOKEN, balance.available, market[BALANCE_TOKEN].rate)) return null;
  const address = rows.find((r) => r.id === target.address.id)!;
  // refused (the network fee takes it all): it waits for more, and neither the settlement that
  // credited it nor the other merchants' payouts fail with it
  const payout = await createPayoutOrWait(tx, { merchantId, address, fromToken: BALANCE_TOKEN, amount: undefined, requestedBy: REQUESTED_BY_SCHEDULER, market, now, ownAddresses });
  if (!payout) return null;
  await tx.update(merchants).set({ payoutScheduledAt: now }).where(eq(merchants.id, merchantId));
  return payout;
}

/**
 * An `instant` merchant is paid by the hourly run only for a credit to the live USDT_TRC20 balance
 * since the last scheduled payout (one the credit itself could not make: the address not active
 * yet, the fee taking it all). A payout the merchant canceled or the operator rejected put its
 * amount back (`payout_release`, not a credit) to stay, and was otherwise requested again every
 * hour. A credit in the same transaction as its own payout (same time) is not newer.
 */
const creditSinceLastPayout = sql`exists (select 1 from ${ledgerEntries} e where e.merchant_id = ${merchants.id} and e.livemode
  and e.token = ${BALANCE_TOKEN} and e.amount > 0 and e.type <> 'payout_release'
  and e.created_at > coalesce(${merchants.payoutScheduledAt}, '-infinity'::timestamptz))`;

/**
 * One pass of the scheduler over every scheduled merchant due at `now`, the pass making up for the
 * hourly ticks from `since` (payoutDue); returns the payouts made.
 */
export async function runScheduledPayouts(db: Database, market: MarketData, ownAddresses: OwnAddressCheck, now: Date, since: Date = now): Promise<PayoutRow[]> {
  const due = (await db.orm.select({ id: merchants.id, schedule: merchants.payoutSchedule, last: merchants.payoutScheduledAt })
    .from(merchants).where(and(eq(merchants.settlement, 'scheduled'), eq(merchants.status, 'active'),
      or(ne(merchants.payoutSchedule, 'instant'), creditSinceLastPayout))))
    .filter((m) => payoutDue(m.schedule, m.last, now, since));
  const made: PayoutRow[] = [];
  for (const m of due) {
    const p = await db.transaction((tx) => scheduledPayout(tx, m.id, market, ownAddresses, now));
    if (p) made.push(p);
  }
  return made;
}
