// /metrics of the watched chains (CONTRACT.md "Live chains"), read from the watchers when scraped:
// gateway_chain_height (last finished block), gateway_chain_behind_seconds (its age),
// gateway_chain_up (1 unless no node answers), and the reorganisations this process followed.
import { Gauge, type Registry } from 'prom-client';
import type { ChainWatching } from './service.ts';

const REPORT_REUSE_MS = 1000;

export function registerChainMetrics(registry: Registry, watching: ChainWatching): void {
  const gauge = (name: string, help: string, fill: (g: Gauge) => Promise<void> | void): void => {
    const g: Gauge = new Gauge({ name, help, labelNames: ['chain'], registers: [registry], collect: async () => { g.reset(); await fill(g); } });
  };
  // One report per scrape, not one per gauge: the three gauges below share a read made within the
  // last second (or still in flight).
  let last: { at: number; views: ReturnType<ChainWatching['report']> } | null = null;
  const views = () => {
    const now = Date.now();
    if (!last || now - last.at > REPORT_REUSE_MS) last = { at: now, views: watching.report().catch(() => []) };
    return last.views;
  };
  gauge('gateway_chain_height', 'Height of the last block the watcher finished, per chain', async (g) => {
    for (const v of await views()) if (v.height !== null) g.set({ chain: v.chain }, v.height);
  });
  gauge('gateway_chain_behind_seconds', 'Age of the last block the watcher finished, per chain', async (g) => {
    for (const v of await views()) if (v.behind_seconds !== null) g.set({ chain: v.chain }, v.behind_seconds);
  });
  gauge('gateway_chain_up', 'Whether a node of the chain answers (1) or none does (0)', async (g) => {
    for (const v of await views()) g.set({ chain: v.chain }, v.status === 'down' ? 0 : 1);
  });
  gauge('gateway_chain_reorgs', 'Reorganisations followed by this process since it started', (g) => {
    for (const [chain, n] of watching.reorgCounts.reorgs) g.set({ chain }, n);
  });
  gauge('gateway_chain_deep_reorgs', 'Reorganisations that took the block of a final deposit (never reversed), since start', (g) => {
    for (const [chain, n] of watching.reorgCounts.deep) g.set({ chain }, n);
  });
}
