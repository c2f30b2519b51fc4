// A node behind the last block the watcher finished (a fallback URL that lags, a node restored from
// an older copy) is not a reorganisation (CONTRACT.md "Live chains": the watcher moves on when a node
// falls behind; a reorganisation is a block leaving the best chain): nothing is rolled back.
import { describe, expect, it, vi } from 'vitest';
import { ChainWatcher, type WatcherParts } from './chain-watcher.ts';
import { NodeEndpoints } from '../rpc/endpoints.ts';
import { createLogger } from '../../platform/logger.ts';
import type { BlockRef, ChainReader } from './types.ts';
import { ManualClock } from '../../platform/clock.ts';
import { MISSING_CONTRACT_RECHECK_MS } from '../../tokens/index.ts';

const now = new Date('2026-03-01T12:00:00Z');
const block = (h: number, tag = 'a'): BlockRef => ({ height: BigInt(h), hash: `${tag}${h}`, parentHash: h === 0 ? '' : `${tag}${h - 1}`, time: now });

/** A watcher whose cursor is at block 10 of chain `a`, over a node whose best chain is `tip` blocks of `tag`. */
function watcherOver(tip: number, tag = 'a', load?: () => Promise<unknown>) {
  // chain `tag` forks from chain `a` above block 8
  const tagOf = (h: bigint) => (h <= 8n ? 'a' : tag);
  const blocks = (h: bigint): BlockRef | null => (h <= BigInt(tip) ? { ...block(Number(h), tagOf(h)), parentHash: h === 0n ? '' : `${tagOf(h - 1n)}${h - 1n}` } : null);
  const reader = {
    chain: 'ethereum',
    network: async () => '1',
    head: async () => blocks(BigInt(tip))!,
    header: async (h: bigint) => blocks(h),
    block: async (h: bigint) => { const b = blocks(h); return b ? { ...b, transfers: [] } : null; },
    txState: async () => ({ kind: 'unknown' }),
  } as unknown as ChainReader;
  const kept = [10, 9, 8, 7, 6].map((h) => ({ chain: 'ethereum', ...block(h) }));
  const statuses: string[] = [];
  const cursors = {
    load: load ?? (async () => ({ chain: 'ethereum', height: 10n, hash: 'a10', blockTime: now, network: '1', awaitingPrice: false })),
    recent: async (_c: string, h: bigint) => kept.filter((b) => b.height <= h),
    advance: async () => {},
    setStatus: async (_c: string, r: { status: string }) => { statuses.push(r.status); },
  };
  const handle = vi.fn(async () => {});
  const endpoints = new NodeEndpoints(['http://first.example', 'http://second.example']);
  const parts = {
    reader, endpoints, cursors, reorgs: { handle },
    addresses: { current: async () => ({ add: () => {} }), drop: () => {} },
    feed: { transfer: async () => 'not_ours', recount: async () => {} },
    clock: { now: () => now }, log: createLogger('silent'),
  } as unknown as WatcherParts;
  const watcher = new ChainWatcher(parts, { confirmations: 12, staleAfterMs: 300_000, maxBlocksPerPass: 100, syncingBehind: 5 });
  return { watcher, handle, endpoints, statuses };
}

describe('ChainWatcher', () => {
  it('a node behind the last block finished, on the same chain, is moved on from: no reorganisation, nothing rolled back', async () => {
    const { watcher, handle, endpoints, statuses } = watcherOver(8);
    expect(await watcher.pass()).toBe(0);
    expect(handle).not.toHaveBeenCalled();
    expect(endpoints.index).toBe(1);
    expect(watcher.state).toMatchObject({ status: 'syncing', height: 10n, hash: 'a10', rpcUrlIndex: 1 });
    expect(watcher.state.lastError).toMatch(/^http:\/\/first\.example\/?: behind: its best block 8 is below the last block finished, 10$/);
    expect(statuses).toEqual(['syncing']);
  });

  it('behind on every node (or on the only one): its tip block taken away, followed back as a reorganisation', async () => {
    const { watcher, handle, endpoints } = watcherOver(8);
    await watcher.pass();
    expect(handle).not.toHaveBeenCalled();
    // the second node shows the same chain: the block is gone, not late
    await watcher.pass();
    expect(handle).toHaveBeenCalledTimes(1);
    expect(handle.mock.calls[0]).toMatchObject(['ethereum', { height: 10n, hash: 'a10' }, { block: { height: 8n, hash: 'a8' }, depth: 2n }]);
    expect(endpoints.index).toBe(1);
  });

  it('a node whose best chain left the cursor\'s blocks is still a reorganisation, even when shorter', async () => {
    const { watcher, handle } = watcherOver(9, 'b');
    await watcher.pass();
    expect(handle).toHaveBeenCalledTimes(1);
    expect(handle.mock.calls[0]).toMatchObject(['ethereum', { height: 10n, hash: 'a10' }, { block: { height: 8n, hash: 'a8' }, depth: 2n }]);
  });

  // The chain's last_error is stored and shown to the operator (/admin/chains): a failed query's
  // message carries the values bound to it, which are never logged nor shown (README "Logs").
  it('keeps a failed query\'s bound values out of the chain\'s last_error', async () => {
    const { watcher, statuses } = watcherOver(10, 'a', async () => { throw new Error('Failed query: select * from chain_cursors where chain = $1\nparams: ethereum,secret-value'); });
    expect(await watcher.pass()).toBe(0);
    expect(watcher.state.status).toBe('down');
    expect(watcher.state.lastError).toBe('Failed query: select * from chain_cursors where chain = $1\nparams: [redacted]');
    expect(statuses).toEqual(['down']);
  });
});

// A process that does not hold the chain's lock still offers its coins, so it asks the node what
// it serves too (the token contracts it holds among them): not on every poll, but again as often
// as a reader asks again about a contract found missing, so a contract deployed later is offered
// by every process, not only the watching one.
describe('ChainWatcher on standby', () => {
  it('asks the node what it serves once, then again every MISSING_CONTRACT_RECHECK_MS', async () => {
    const clock = new ManualClock();
    const network = vi.fn(async () => '1');
    const parts = {
      reader: { chain: 'ethereum', network }, endpoints: new NodeEndpoints(['http://first.example']),
      clock, log: createLogger('silent'),
    } as unknown as WatcherParts;
    const watcher = new ChainWatcher(parts, { confirmations: 12, staleAfterMs: 300_000, maxBlocksPerPass: 100, syncingBehind: 5 });
    await watcher.standby();
    await watcher.standby();
    expect(network).toHaveBeenCalledTimes(1);
    clock.advance(MISSING_CONTRACT_RECHECK_MS - 1);
    await watcher.standby();
    expect(network).toHaveBeenCalledTimes(1);
    clock.advance(1);
    await watcher.standby();
    await watcher.standby();
    expect(network).toHaveBeenCalledTimes(2);
  });

  it('a node that did not answer is asked again on the next turn', async () => {
    const network = vi.fn(async () => { throw new Error('down'); });
    const parts = {
      reader: { chain: 'ethereum', network }, endpoints: new NodeEndpoints(['http://first.example']),
      clock: new ManualClock(), log: createLogger('silent'),
    } as unknown as WatcherParts;
    const watcher = new ChainWatcher(parts, { confirmations: 12, staleAfterMs: 300_000, maxBlocksPerPass: 100, syncingBehind: 5 });
    await watcher.standby();
    await watcher.standby();
    expect(network).toHaveBeenCalledTimes(2);
  });
});
