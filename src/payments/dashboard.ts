// Dashboard figures (spec 2): counts and dollar volumes of one mode, spans in UTC calendar days,
// only confirmed payments count, each at its usd_amount. volume_usd figures have two decimals.
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import { queryRows } from '../platform/db/index.ts';
import { dec, formatUsd, formatUsd2, type Decimal } from '../money/index.ts';

/** Deliveries that gave up, from the webhooks room (0 until it provides a counter). */
export type FailedWebhooksCounter = (merchantId: string, livemode: boolean) => Promise<number>;

const DAY_MS = 86_400_000;
const startOfUtcDay = (d: Date): Date => new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS);

interface Span { confirmed: number; volume: Decimal; byChain: Map<string, Decimal> }

function spanJson(s: Span): Record<string, unknown> {
  return {
    confirmed: s.confirmed,
    volume_usd: formatUsd2(s.volume),
    by_chain: Object.fromEntries([...s.byChain].sort(([a], [b]) => a.localeCompare(b)).map(([c, v]) => [c, formatUsd(v)])),
  };
}

export async function dashboardFigures(ex: Executor, merchantId: string, livemode: boolean, now: Date, failedWebhooks: FailedWebhooksCounter): Promise<Record<string, unknown>> {
  const today = startOfUtcDay(now);
  const starts = { today, last_7_days: new Date(today.getTime() - 6 * DAY_MS), last_30_days: new Date(today.getTime() - 29 * DAY_MS) };
  // All time by chain alone and the last 30 days by day: grouping every confirmed payment by day
  // too built one group per day and chain of the merchant's whole history (migration 1240).
  const allTime = await queryRows<{ chain: string; n: string; volume: string }>(ex, sql`
    select chain, count(*) as n, sum(usd_amount) as volume
    from payments where merchant_id = ${merchantId} and livemode = ${livemode} and status = 'confirmed' and confirmed_at is not null
    group by 1`);
  const recent = await queryRows<{ day: string | Date; chain: string; n: string; volume: string }>(ex, sql`
    select date_trunc('day', confirmed_at at time zone 'UTC') as day, chain, count(*) as n, sum(usd_amount) as volume
    from payments where merchant_id = ${merchantId} and livemode = ${livemode} and status = 'confirmed'
      and confirmed_at >= ${starts.last_30_days.toISOString()}
    group by 1, 2`);
  const spans: Record<string, Span> = {};
  for (const k of ['today', 'last_7_days', 'last_30_days', 'all_time']) spans[k] = { confirmed: 0, volume: dec(0), byChain: new Map() };
  const add = (s: Span, r: { chain: string; n: string; volume: string }) => {
    s.confirmed += Number(r.n);
    s.volume = s.volume.plus(dec(r.volume));
    s.byChain.set(r.chain, (s.byChain.get(r.chain) ?? dec(0)).plus(dec(r.volume)));
  };
  for (const r of allTime) add(spans.all_time, r);
  for (const r of recent) {
    const day = new Date(`${String(r.day instanceof Date ? r.day.toISOString() : r.day).slice(0, 10)}T00:00:00Z`);
    for (const [k, start] of Object.entries(starts)) if (day.getTime() >= start.getTime()) add(spans[k], r);
  }
  // Two counts, each read from a partial index (payments_open_order, payments_expired) instead of
  // one pass over every payment of the merchant.
  const [counts] = await queryRows<{ pending: string; expired_today: string }>(ex, sql`
    select (select count(*) from payments where merchant_id = ${merchantId} and livemode = ${livemode}
              and status in ('pending', 'partially_paid', 'detecting')) as pending,
           (select count(*) from payments where merchant_id = ${merchantId} and livemode = ${livemode}
              and status = 'expired' and closed_at >= ${today.toISOString()}) as expired_today`);
  const t = spans.today;
  return {
    livemode,
    confirmed_today: t.confirmed,
    volume_usd_today: formatUsd2(t.volume),
    pending: Number(counts.pending),
    expired_today: Number(counts.expired_today),
    failed_webhooks: await failedWebhooks(merchantId, livemode),
    by_chain: spanJson(t).by_chain,
    periods: Object.fromEntries(['today', 'last_7_days', 'last_30_days', 'all_time'].map((k) => [k, spanJson(spans[k])])),
    generated_at: now.toISOString(),
  };
}
