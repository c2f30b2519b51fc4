// Door of chains/watch: the chain-agnostic watcher (cursor, reorganisations, catch-up, the index
// of watched addresses, feeding DepositIntake, one process per chain) and the interface a chain
// family implements for it.
export type { BlockRef, ChainBlock, ChainReader, ObservedTransfer, OwnWallet, TxState } from './types.ts';
export { ChainWatching, STALE_AFTER_S, KEEP_BLOCKS, type WatchingOptions } from './service.ts';
export { AddressIndex } from './address-index.ts';
export { matchTransfers, ORPHAN_TIMEOUT_MS } from './deposit-feed.ts';
export { registerChainRoutes } from './routes.ts';
export { registerChainMetrics } from './metrics.ts';
export { unmatchedOfPayment, listUnmatched } from './unmatched.ts';
export { DEEP_REORG_ACTION } from './reorg-handler.ts';
export { chainCursors, chainBlocks, unmatchedDeposits } from './schema.ts';
export type { ChainView } from './report.ts';
