// The planner's market view from a MarketSource snapshot. Swap quotes come from the market rates
// themselves (no swap router yet), so a swap is always at market price. A coin with no current
// price (live: stale, or a stablecoin off its peg) has no rate here, so nothing is priced from it:
// a plan that needs it waits (plan.ts, NOTE_WAITING_PRICE).
import { isPriced, type MarketData } from '../market/index.ts';
import { TOKENS } from '../tokens/index.ts';
import type { MarketQuotes } from './types.ts';

export function marketQuotes(data: MarketData): MarketQuotes {
  const rates: MarketQuotes['rates'] = {};
  const fee: MarketQuotes['network_fee_usd'] = {};
  const exMin: MarketQuotes['exchange_min_usd'] = {};
  for (const t of TOKENS) {
    if (isPriced(data[t])) rates[t] = data[t].rate;
    fee[t] = data[t].networkFeeUsd;
    exMin[t] = data[t].exchangeMinUsd;
  }
  return { rates, network_fee_usd: fee, exchange_min_usd: exMin };
}
