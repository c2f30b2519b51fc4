// The dashboard chart's series (README "Dashboard additions": GET /merchant/dashboard/series):
// confirmed payments of one mode per UTC calendar day, counted and summed at their usd_amount like
// the dashboard figures (spec 2), split by chain. Every day of the span is listed, empty ones too,
// so the chart needs no gap filling. Dollar figures have two decimals.
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import { queryRows } from '../platform/db/index.ts';
import { badRequest } from '../platform/errors.ts';
import { dec, formatUsd2, type Decimal } from '../money/index.ts';

export const DAYS_MESSAGE = 'days must be a whole number from 1 to 366';
export const SERIES_DEFAULT_DAYS = 30;
const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

/** `days` of the query: absent or empty means 30; anything else must be 1..366. */
export function seriesDays(v: unknown): number {
  if (v === undefined || v === '') return SERIES_DEFAULT_DAYS;
  const n = typeof v === 'string' && /^\d{1,4}$/.test(v) ? Number(v) : NaN;
  if (!(n >= 1 && n <= MAX_DAYS)) throw badRequest(DAYS_MESSAGE);
  return n;
}

interface Day { confirmed: number; volume: Decimal; byChain: Map<string, Decimal> }
const isoDay = (d: Date): string => d.toISOString().slice(0, 10);

export async function dashboardSeries(ex: Executor, merchantId: string, livemode: boolean, now: Date, daysParam: unknown): Promise<Record<string, unknown>> {
  const days = seriesDays(daysParam);
  const first = new Date((Math.floor(now.getTime() / DAY_MS) - (days - 1)) * DAY_MS);
  const rows = await queryRows<{ day: string | Date; chain: string; n: string; volume: string }>(ex, sql`
    select date_trunc('day', confirmed_at at time zone 'UTC') as day, chain, count(*) as n, sum(usd_amount) as volume
    from payments where merchant_id = ${merchantId} and livemode = ${livemode} and status = 'confirmed'
      and confirmed_at >= ${first.toISOString()}
    group by 1, 2`);
  const byDay = new Map<string, Day>();
  for (let i = 0; i < days; i++) byDay.set(isoDay(new Date(first.getTime() + i * DAY_MS)), { confirmed: 0, volume: dec(0), byChain: new Map() });
  const chains = new Set<string>();
  for (const r of rows) {
    const d = byDay.get(String(r.day instanceof Date ? r.day.toISOString() : r.day).slice(0, 10));
    if (!d) continue; // confirmed after the end of today (a clock behind the database's)
    d.confirmed += Number(r.n);
    d.volume = d.volume.plus(dec(r.volume));
    d.byChain.set(r.chain, (d.byChain.get(r.chain) ?? dec(0)).plus(dec(r.volume)));
    chains.add(r.chain);
  }
  const chainList = [...chains].sort();
  return {
    livemode,
    days,
    from: isoDay(first),
    to: isoDay(now),
    chains: chainList,
    series: [...byDay].map(([date, d]) => ({
      date,
      confirmed: d.confirmed,
      volume_usd: formatUsd2(d.volume),
      by_chain: Object.fromEntries(chainList.filter((c) => d.byChain.has(c)).map((c) => [c, formatUsd2(d.byChain.get(c)!)])),
    })),
    generated_at: now.toISOString(),
  };
}
