// /metrics gauges of the live market, read from it when scraped (nothing is counted per request):
//   market_rate_usd{token}                          the rate GET /admin/market shows (stablecoins: market price)
//   market_token_status{token,status}               1 for the token's status (ok, stale, off_peg), 0 for the others
//   market_stablecoin_peg_deviation{token}          |market price − 1| of USDT and USDC
//   market_stablecoin_off_peg{token}                1 while more than 2% from a dollar (flagged), else 0
//   market_source_up{source}                        1 when the source's last fetch gave a price
//   market_source_last_success_timestamp_seconds{source}
import { Gauge, type Registry } from 'prom-client';
import { dec } from '../money/index.ts';
import { tokenDef } from '../tokens/index.ts';
import { PEG_WARN_SHARE, fartherThan } from './aggregate.ts';
import { MARKET_STATUSES } from './market-data.ts';
import type { Market } from './market.ts';

type Collect = (g: Gauge) => void;

export function registerMarketMetrics(registry: Registry, market: Market): void {
  // Each gauge reads the market afresh when scraped (a report is a dozen small objects).
  const gauge = (name: string, help: string, labelNames: string[], fill: Collect): void => {
    const g: Gauge = new Gauge({ name, help, labelNames, registers: [registry], collect: () => { g.reset(); fill(g); } });
  };
  const live = () => market.report(true);
  const stable = () => live().filter((e) => e.rate !== null && tokenDef(e.token).stablecoin);

  gauge('market_rate_usd', 'Dollar rate of each token in live mode', ['token'], (g) => {
    for (const e of live()) if (e.rate !== null) g.set({ token: e.token }, Number(e.rate));
  });
  gauge('market_token_status', 'Live market status of each token (1 for the current one)', ['token', 'status'], (g) => {
    for (const e of live()) for (const s of MARKET_STATUSES) g.set({ token: e.token, status: s }, e.status === s ? 1 : 0);
  });
  gauge('market_stablecoin_peg_deviation', 'Distance of a stablecoin market price from one dollar', ['token'], (g) => {
    for (const e of stable()) g.set({ token: e.token }, dec(e.rate!).minus(1).abs().toNumber());
  });
  gauge('market_stablecoin_off_peg', 'A stablecoin more than 2% from a dollar', ['token'], (g) => {
    for (const e of stable()) g.set({ token: e.token }, fartherThan(dec(e.rate!), dec(1), PEG_WARN_SHARE) ? 1 : 0);
  });
  gauge('market_source_up', 'The rate source\'s last fetch gave a price', ['source'], (g) => {
    for (const s of market.sourceHealth()) g.set({ source: s.name }, s.up ? 1 : 0);
  });
  gauge('market_source_last_success_timestamp_seconds', 'When the rate source last gave a price', ['source'], (g) => {
    for (const s of market.sourceHealth()) if (s.lastSuccessAt !== null) g.set({ source: s.name }, s.lastSuccessAt / 1000);
  });
}
