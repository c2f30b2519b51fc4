// The state of each chain with a node configured (GET /admin/chains, the /metrics gauges): the
// cursor row the watching process keeps, overlaid with this process's own fresher view when it is
// the one watching. `behind_seconds` is how old the last finished block is (0 when ahead of the clock).
import type { Chain } from '../../config.ts';
import type { ChainCursorRow } from './schema.ts';
import type { ChainStatus } from './cursor-store.ts';
import type { WatcherState } from './chain-watcher.ts';

export interface ChainView {
  chain: Chain;
  status: ChainStatus;
  height: number | null;
  hash: string | null;
  behind_seconds: number | null;
  rpc_url_index: number;
  last_error: string | null;
}

export const NOT_WATCHED = 'no watcher for this chain in this version';

export function chainViews(configured: readonly Chain[], rows: readonly ChainCursorRow[], own: ReadonlyMap<Chain, WatcherState>, now: Date): ChainView[] {
  return configured.map((chain) => {
    const row = rows.find((r) => r.chain === chain);
    const mine = own.get(chain);
    const height = mine?.height ?? row?.height ?? null;
    const blockTime = mine?.blockTime ?? row?.blockTime ?? null;
    return {
      chain,
      status: mine?.status ?? (row?.status as ChainStatus | undefined) ?? 'down',
      height: height === null ? null : Number(height),
      hash: mine?.hash ?? row?.hash ?? null,
      behind_seconds: blockTime === null ? null : Math.max(0, Math.floor((now.getTime() - blockTime.getTime()) / 1000)),
      rpc_url_index: mine?.rpcUrlIndex ?? row?.rpcUrlIndex ?? 0,
      last_error: mine ? mine.lastError : row ? row.lastError : NOT_WATCHED,
    };
  });
}
