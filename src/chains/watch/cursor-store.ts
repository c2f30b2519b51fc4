// The durable cursor of a chain (the last block the watcher finished) and the recent blocks behind
// it. The cursor moves with a compare-and-set on its height and hash, so two processes that both
// believe they watch a chain (a lock lost mid-pass) never move it past a block twice or skip one.
import { and, desc, eq, gt, lte } from 'drizzle-orm';
import type { Chain } from '../../config.ts';
import type { Database, Executor } from '../../platform/db/index.ts';
import { chainBlocks, chainCursors, type ChainCursorRow } from './schema.ts';
import type { BlockRef } from './types.ts';

export type ChainStatus = 'ok' | 'stale' | 'down' | 'syncing';

/** The cursor moved under us: another process watches this chain now. */
export class CursorMoved extends Error {
  constructor(chain: Chain) {
    super(`${chain}: the cursor was moved by another process`);
    this.name = 'CursorMoved';
  }
}

export interface StatusReport {
  status: ChainStatus;
  rpcUrlIndex: number;
  lastError: string | null;
}

export class CursorStore {
  readonly #db: Database;
  /** How many finished blocks are kept below the cursor: the deepest reorganisation followed block by block. */
  readonly keep: number;

  constructor(db: Database, keep: number) {
    this.#db = db;
    this.keep = keep;
  }

  async load(chain: Chain): Promise<ChainCursorRow | undefined> {
    const [row] = await this.#db.orm.select().from(chainCursors).where(eq(chainCursors.chain, chain));
    return row;
  }

  list(): Promise<ChainCursorRow[]> {
    return this.#db.orm.select().from(chainCursors);
  }

  /** The first cursor of a chain (where watching starts); another process's first cursor wins. */
  async init(chain: Chain, block: BlockRef, network: string, now: Date): Promise<ChainCursorRow> {
    await this.#db.transaction(async (tx) => {
      const inserted = await tx.insert(chainCursors).values({
        chain, height: block.height, hash: block.hash, blockTime: block.time, network, status: 'syncing', updatedAt: now,
      }).onConflictDoNothing().returning({ chain: chainCursors.chain });
      if (inserted.length > 0) await tx.insert(chainBlocks).values(blockRow(chain, block)).onConflictDoNothing();
    });
    return (await this.load(chain))!;
  }

  /** Moves the cursor from `from` to the next block `to`, remembering it and forgetting blocks older than `keep`. */
  async advance(chain: Chain, from: { height: bigint; hash: string }, to: BlockRef, now: Date): Promise<void> {
    await this.#db.transaction(async (tx) => {
      const moved = await tx.update(chainCursors).set({ height: to.height, hash: to.hash, blockTime: to.time, updatedAt: now })
        .where(and(eq(chainCursors.chain, chain), eq(chainCursors.height, from.height), eq(chainCursors.hash, from.hash)))
        .returning({ chain: chainCursors.chain });
      if (moved.length === 0) throw new CursorMoved(chain);
      await tx.insert(chainBlocks).values(blockRow(chain, to))
        .onConflictDoUpdate({ target: [chainBlocks.chain, chainBlocks.height], set: { hash: to.hash, parentHash: to.parentHash, blockTime: to.time } });
      await tx.delete(chainBlocks).where(and(eq(chainBlocks.chain, chain), lte(chainBlocks.height, to.height - BigInt(this.keep))));
    }, { silent: true });
  }

  /**
   * After a reorganisation: the cursor goes back to the common ancestor and the blocks above it are
   * forgotten; `alongside` writes in the same transaction (what the reorganisation records, committed
   * with the rollback or not at all).
   */
  async rollback(chain: Chain, from: { height: bigint; hash: string }, to: BlockRef, now: Date, alongside?: (tx: Executor) => Promise<void>): Promise<void> {
    await this.#db.transaction(async (tx) => {
      const moved = await tx.update(chainCursors).set({ height: to.height, hash: to.hash, blockTime: to.time, updatedAt: now })
        .where(and(eq(chainCursors.chain, chain), eq(chainCursors.height, from.height), eq(chainCursors.hash, from.hash)))
        .returning({ chain: chainCursors.chain });
      if (moved.length === 0) throw new CursorMoved(chain);
      await tx.delete(chainBlocks).where(and(eq(chainBlocks.chain, chain), gt(chainBlocks.height, to.height)));
      await tx.insert(chainBlocks).values(blockRow(chain, to)).onConflictDoNothing();
      if (alongside) await alongside(tx);
    }, { silent: true });
  }

  /** The finished blocks at or below `height`, newest first (where the common ancestor is looked for). */
  recent(chain: Chain, height: bigint): Promise<Array<typeof chainBlocks.$inferSelect>> {
    return this.#db.orm.select().from(chainBlocks).where(and(eq(chainBlocks.chain, chain), lte(chainBlocks.height, height)))
      .orderBy(desc(chainBlocks.height)).limit(this.keep);
  }

  async setStatus(chain: Chain, r: StatusReport, now: Date): Promise<void> {
    await this.#db.orm.update(chainCursors).set({ status: r.status, rpcUrlIndex: r.rpcUrlIndex, lastError: r.lastError, updatedAt: now })
      .where(eq(chainCursors.chain, chain));
  }
}

const blockRow = (chain: Chain, b: BlockRef) => ({ chain, height: b.height, hash: b.hash, parentHash: b.parentHash, blockTime: b.time });
