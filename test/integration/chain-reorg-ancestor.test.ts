// Where a reorganisation is followed back to (chains/watch/reorg.ts with the cursor's kept blocks),
// on a real database against a scripted best chain: the ancestor is the newest kept block still on
// the best chain, its depth counts the blocks taken, a reorganisation deeper than the kept blocks
// goes to the block below the oldest one kept. The anvil files reorganise one block or several
// past the confirmations; these pin the depths and heights exactly.
import { expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { CursorStore } from '../../src/chains/watch/cursor-store.ts';
import { chainBlocks, chainCursors } from '../../src/chains/watch/schema.ts';
import { findCommonAncestor } from '../../src/chains/watch/reorg.ts';
import type { BlockRef, ChainReader } from '../../src/chains/watch/types.ts';

const KEEP = 4;
const at = new Date('2026-01-05T12:00:00Z');

/** A best chain of blocks 0..tip; `fork` gives the blocks from a height new hashes (a reorganisation). */
class ScriptedChain {
  #hashes = new Map<bigint, string>();
  constructor(tip: bigint) { for (let h = 0n; h <= tip; h++) this.#hashes.set(h, `a${h}`); }
  fork(from: bigint, tip: bigint, tag: string): void {
    for (const h of [...this.#hashes.keys()]) if (h >= from) this.#hashes.delete(h);
    for (let h = from; h <= tip; h++) this.#hashes.set(h, `${tag}${h}`);
  }
  block(h: bigint): BlockRef | null {
    const hash = this.#hashes.get(h);
    return hash === undefined ? null : { height: h, hash, parentHash: h === 0n ? '' : this.#hashes.get(h - 1n)!, time: at };
  }
  reader(): ChainReader {
    return { chain: 'ethereum', header: async (h: bigint) => this.block(h) } as unknown as ChainReader;
  }
}

describeEachDb('common ancestor of a reorganisation', (h) => {
  /** A cursor watched from block 10 up to `to` (the blocks kept as the watcher keeps them). */
  async function watched(c: ScriptedChain, to: bigint): Promise<CursorStore> {
    const cursors = new CursorStore(h.db(), KEEP);
    await h.db().orm.delete(chainBlocks);
    await h.db().orm.delete(chainCursors);
    await cursors.init('ethereum', c.block(10n)!, '1', at);
    for (let x = 11n; x <= to; x++) await cursors.advance('ethereum', c.block(x - 1n)!, c.block(x)!, at);
    return cursors;
  }

  /** The chain watched up to block 20, then forked from `from` to `to`: the ancestor the search finds. */
  async function ancestorAfterFork(from: bigint, to: bigint) {
    const c = new ScriptedChain(20n);
    const cursors = await watched(c, 20n);
    c.fork(from, to, 'b');
    return { c, found: await findCommonAncestor(c.reader(), cursors, 'ethereum', 20n) };
  }

  it('the newest kept block still on the best chain, with the depth of the blocks taken', async () => {
    const { c, found } = await ancestorAfterFork(19n, 21n);
    expect(found).toEqual({ block: c.block(18n), depth: 2n, beyondKept: false });
  });

  it('deeper than the blocks kept: the block below the oldest kept, said to be beyond them', async () => {
    // blocks 17..20 are kept (KEEP 4); the fork starts below them all
    const { c, found } = await ancestorAfterFork(15n, 22n);
    expect(found).toEqual({ block: c.block(16n), depth: 4n, beyondKept: true });
  });
});
