// The rate of one asset from the prices its sources gave (CONTRACT.md "Live market data"). Pure.
//  - A price counts while it is fresh: fetched within the last RATE_MAX_AGE_S.
//  - A price in USDT is turned into dollars at USDT's own dollar rate (the same rule applied to the
//    sources that quote USDT in dollars); while USDT has none, prices in USDT count for nothing:
//    treating USDT as exactly a dollar would price every coin wrong the day it is not.
//  - The rate is the median of the fresh prices; a price more than 5% from that median is left
//    out, and the rate is the median of the rest. Two prices more than 10% apart leave nothing:
//    no rate rather than a guess.
//  - Rates are rounded half-up to 8 decimals.
import { dec, rateHalfUp, type Decimal } from '../money/index.ts';
import type { QuoteCurrency } from './rate-sources.ts';

export const OUTLIER_SHARE = dec('0.05');
/** A stablecoin further than this from a dollar is flagged to the operator. */
export const PEG_WARN_SHARE = dec('0.02');
/** …and further than this, refused (`off_peg`). */
export const PEG_OFF_SHARE = dec('0.05');

export interface Quote {
  source: string;
  price: Decimal;
  quote: QuoteCurrency;
  /** Epoch ms of the answer that carried it. */
  fetchedAt: number;
}

export interface QuoteUse {
  source: string;
  /** In dollars; in USDT when no USDT rate could convert it (then never used). */
  price: Decimal;
  fetchedAt: number;
  fresh: boolean;
  /** More than 5% from the median of all fresh prices. */
  outlier: boolean;
  /** Counted in the rate. */
  used: boolean;
}

export interface AssetRate {
  /** Null when no fresh price is left. */
  rate: Decimal | null;
  /** Newest answer among the prices used (epoch ms); null with no rate. */
  updatedAt: number | null;
  uses: QuoteUse[];
  /** Epoch ms at which a price used now goes stale, so the rate may change (Infinity: never). */
  changesAt: number;
}

export function median(values: readonly Decimal[]): Decimal {
  if (values.length === 0) throw new Error('median of nothing');
  const sorted = [...values].sort((a, b) => a.cmp(b));
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : sorted[mid - 1].plus(sorted[mid]).div(2);
}

/** Whether `price` is more than `share` away from `from`. */
export const fartherThan = (price: Decimal, from: Decimal, share: Decimal): boolean => price.minus(from).abs().gt(from.mul(share));

export interface AggregateOptions {
  now: number;
  maxAgeMs: number;
  /** Dollar rate of USDT for prices quoted in USDT; null when there is none. */
  usdtUsd: Decimal | null;
}

export function aggregate(quotes: readonly Quote[], o: AggregateOptions): AssetRate {
  const uses: QuoteUse[] = quotes.map((q) => {
    const convertible = q.quote === 'USD' || o.usdtUsd !== null;
    return {
      source: q.source,
      price: q.quote === 'USDT' && o.usdtUsd !== null ? q.price.mul(o.usdtUsd) : q.price,
      fetchedAt: q.fetchedAt,
      fresh: convertible && o.now - q.fetchedAt <= o.maxAgeMs,
      outlier: false,
      used: false,
    };
  });
  const fresh = uses.filter((u) => u.fresh);
  let changesAt = Infinity;
  for (const u of fresh) changesAt = Math.min(changesAt, u.fetchedAt + o.maxAgeMs + 1);
  if (fresh.length === 0) return { rate: null, updatedAt: null, uses, changesAt };
  const mid = median(fresh.map((u) => u.price));
  for (const u of fresh) {
    u.outlier = fartherThan(u.price, mid, OUTLIER_SHARE);
    u.used = !u.outlier;
  }
  const used = fresh.filter((u) => u.used);
  if (used.length === 0) return { rate: null, updatedAt: null, uses, changesAt };
  const rate = rateHalfUp(median(used.map((u) => u.price)));
  // A positive price under half of 0.00000001 rounds to a rate of 0: pricing a payment from it
  // divides by zero (HTTP 500), so it is no rate at all, like a price that is not positive.
  if (rate.isZero()) {
    for (const u of used) u.used = false;
    return { rate: null, updatedAt: null, uses, changesAt };
  }
  return {
    rate,
    updatedAt: Math.max(...used.map((u) => u.fetchedAt)),
    uses,
    changesAt,
  };
}

export type PegState = 'on_peg' | 'drifting' | 'off_peg';

/** A stablecoin's market price against its dollar: within 2%, beyond 2% (flagged), beyond 5% (refused). */
export function pegState(price: Decimal): PegState {
  if (fartherThan(price, dec(1), PEG_OFF_SHARE)) return 'off_peg';
  if (fartherThan(price, dec(1), PEG_WARN_SHARE)) return 'drifting';
  return 'on_peg';
}
