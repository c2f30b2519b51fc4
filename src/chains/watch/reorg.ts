// Finding where the watcher's chain and the node's best chain part (DESIGN.md: NBXplorer orphans
// blocks from a height the same way): walk down the blocks the watcher finished, newest first,
// until one is still on the node's best chain. Deeper than the blocks kept, the walk gives up at
// the oldest one kept and says so (`deep`): watching goes on from the node's block there.
import type { Chain } from '../../config.ts';
import type { CursorStore } from './cursor-store.ts';
import type { BlockRef, ChainReader } from './types.ts';

export interface CommonAncestor {
  block: BlockRef;
  /** Blocks between the cursor and the ancestor. */
  depth: bigint;
  /** The ancestor was not among the kept blocks. */
  beyondKept: boolean;
}

export async function findCommonAncestor(reader: ChainReader, cursors: CursorStore, chain: Chain, from: bigint): Promise<CommonAncestor> {
  const kept = await cursors.recent(chain, from);
  for (const b of kept) {
    const there = await reader.header(b.height);
    if (there && there.hash === b.hash) return { block: there, depth: from - b.height, beyondKept: false };
  }
  const oldest = kept.length > 0 ? kept[kept.length - 1].height : from;
  const height = oldest > 0n ? oldest - 1n : 0n;
  const there = await reader.header(height);
  if (!there) throw new Error(`no block at height ${height} on the node after a reorganisation`);
  return { block: there, depth: from - height, beyondKept: true };
}
