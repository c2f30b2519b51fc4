// GET /admin/chains (CONTRACT.md "Live chains"): one entry per chain with a node configured;
// `height` and `hash` the last block finished; `behind_seconds` that block's age, 0 when its time
// is ahead of the clock; `rpc_url_index` counting from 0 in the chain's URL list.
import { expect, it } from 'vitest';
import { chainViews, NOT_REPORTED, NOT_WATCHED } from './report.ts';
import type { ChainCursorRow } from './schema.ts';
import type { WatcherState } from './chain-watcher.ts';

const now = new Date('2026-05-01T12:00:00.000Z');
const row = (chain: string, blockTime: Date, more: Partial<ChainCursorRow> = {}): ChainCursorRow => ({
  chain, height: 100n, hash: '0xrow', blockTime, network: 'mainnet', status: 'ok', rpcUrlIndex: 0, lastError: null,
  updatedAt: now, awaitingPrice: false, ...more,
});

it('gives the age of the last finished block, 0 when its time is ahead of the clock', () => {
  const rows = [
    row('ethereum', new Date(now.getTime() - 90_500)),
    row('bitcoin', new Date(now.getTime() + 45_000)),
  ];
  const views = chainViews(['ethereum', 'bitcoin'], rows, new Map(), now);
  expect(views.map((v) => [v.chain, v.behind_seconds])).toEqual([['ethereum', 90], ['bitcoin', 0]]);
});

it('lists every configured chain in order, one not watched yet as down with no block', () => {
  const views = chainViews(['tron', 'xrp'], [row('xrp', now, { height: 7n, hash: 'ABC', rpcUrlIndex: 2, status: 'stale', lastError: 'tip too old' })], new Map(), now);
  expect(views).toEqual([
    { chain: 'tron', status: 'down', height: null, hash: null, behind_seconds: null, rpc_url_index: 0, last_error: NOT_WATCHED },
    { chain: 'xrp', status: 'stale', height: 7, hash: 'ABC', behind_seconds: 0, rpc_url_index: 2, last_error: 'tip too old' },
  ]);
});

it("prefers this process's own fresher view of the chain it watches", () => {
  const own: WatcherState = {
    chain: 'litecoin', status: 'ok', height: 205n, hash: 'mine', blockTime: new Date(now.getTime() - 3_000), rpcUrlIndex: 1, lastError: null,
  };
  const views = chainViews(['litecoin'], [row('litecoin', new Date(now.getTime() - 600_000), { status: 'down', lastError: 'refused' })], new Map([['litecoin', own]]), now);
  expect(views).toEqual([{ chain: 'litecoin', status: 'ok', height: 205, hash: 'mine', behind_seconds: 3, rpc_url_index: 1, last_error: null }]);
});

it('a chain another process reported ok or syncing but has not updated for longer than the chain may go without a block is stale, saying so', () => {
  const quiet = (chain: string) => (chain === 'ethereum' ? 300 : 3600);
  const rows = [
    row('ethereum', new Date(now.getTime() - 900_000), { updatedAt: new Date(now.getTime() - 900_000) }),
    row('litecoin', new Date(now.getTime() - 7_200_000), { status: 'syncing', updatedAt: new Date(now.getTime() - 3_700_000) }),
    row('bitcoin', new Date(now.getTime() - 1_000_000), { updatedAt: new Date(now.getTime() - 1_000_000) }),
    row('bsc', new Date(now.getTime() - 900_000), { status: 'down', lastError: 'refused', updatedAt: new Date(now.getTime() - 900_000) }),
  ];
  const views = chainViews(['ethereum', 'litecoin', 'bitcoin', 'bsc'], rows, new Map(), now, quiet);
  expect(views.map((v) => [v.chain, v.status, v.last_error])).toEqual([
    ['ethereum', 'stale', NOT_REPORTED(900)],
    ['litecoin', 'stale', NOT_REPORTED(3700)],
    ['bitcoin', 'ok', null],
    ['bsc', 'down', 'refused'],
  ]);
  expect(NOT_REPORTED(900)).toBe('no process has reported on this chain for 900 s: is the watching process running?');
  // the process watching the chain reports its own view, however old the stored row
  const own: WatcherState = { chain: 'ethereum', status: 'ok', height: 101n, hash: 'mine', blockTime: now, rpcUrlIndex: 0, lastError: null };
  expect(chainViews(['ethereum'], rows, new Map([['ethereum', own]]), now, quiet)[0]).toMatchObject({ status: 'ok', last_error: null });
});
