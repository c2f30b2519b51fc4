// The chain gauges read the watchers' report once per scrape, whatever the number of gauges.
import { expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { registerChainMetrics } from './metrics.ts';
import type { ChainWatching } from './service.ts';
import type { ChainView } from './report.ts';

it('one scrape reads the chain report once and fills every gauge from it', async () => {
  let reads = 0;
  const view: ChainView = { chain: 'ethereum', status: 'ok', height: 120, hash: '0xabc', behind_seconds: 3, rpc_url_index: 0, last_error: null };
  const watching = {
    report: async () => { reads++; return [view]; },
    reorgCounts: { reorgs: new Map([['ethereum', 2]]), deep: new Map() },
  } as unknown as ChainWatching;
  const registry = new Registry();
  registerChainMetrics(registry, watching);
  const text = await registry.metrics();
  expect(reads).toBe(1);
  expect(text).toContain('gateway_chain_height{chain="ethereum"} 120');
  expect(text).toContain('gateway_chain_behind_seconds{chain="ethereum"} 3');
  expect(text).toContain('gateway_chain_up{chain="ethereum"} 1');
  expect(text).toContain('gateway_chain_reorgs{chain="ethereum"} 2');
});
