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

/** A stored `ok`/`syncing` nobody has refreshed for longer than the chain may go without a block. */
export const NOT_REPORTED = (seconds: number): string => `no process has reported on this chain for ${seconds} s: is the watching process running?`;

/**
 * `quietAfterS`: how long the watching process may leave its row unchanged while `ok` or `syncing`
 * (it writes on every block finished and every change of status; a chain without a block for that
 * long it would itself call `stale`). A row older than that, read by another process (an API-only
 * one), was left by a watcher that stopped: shown `stale`, not the `ok` it last wrote.
 */
export function chainViews(configured: readonly Chain[], rows: readonly ChainCursorRow[], own: ReadonlyMap<Chain, WatcherState>, now: Date, quietAfterS?: (chain: Chain) => number): ChainView[] {
  return configured.map((chain) => {
    const row = rows.find((r) => r.chain === chain);
    const mine = own.get(chain);
    const height = mine?.height ?? row?.height ?? null;
    const blockTime = mine?.blockTime ?? row?.blockTime ?? null;
    const quietS = row ? Math.floor((now.getTime() - row.updatedAt.getTime()) / 1000) : 0;
    const abandoned = !mine && row !== undefined && (row.status === 'ok' || row.status === 'syncing') && quietAfterS !== undefined && quietS > quietAfterS(chain);
    return {
      chain,
      status: abandoned ? 'stale' : mine?.status ?? (row?.status as ChainStatus | undefined) ?? 'down',
      height: height === null ? null : Number(height),
      hash: mine?.hash ?? row?.hash ?? null,
      behind_seconds: blockTime === null ? null : Math.max(0, Math.floor((now.getTime() - blockTime.getTime()) / 1000)),
      rpc_url_index: mine?.rpcUrlIndex ?? row?.rpcUrlIndex ?? 0,
      last_error: abandoned ? NOT_REPORTED(quietS) : mine ? mine.lastError : row ? row.lastError : NOT_WATCHED,
    };
  });
}
