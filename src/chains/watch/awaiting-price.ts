// Deposits that wait for their coin's price. A deposit in another coin than its payment's is valued
// at that coin's current market price; while the coin has none (stale sources, a stablecoin off its
// peg) it cannot be recorded, yet the chain's cursor must move on. So the transfer is kept here, in
// the database (never lost), and on each watcher pass once the coin is priced again it is recorded
// as the payment's deposit exactly as it would have been when seen: the same `seen_at` (so the late
// window is judged from when it arrived), its block's current confirmation count, valued at the
// price of the moment it is recorded. Its events are dated when it is recorded.
// The table is almost always empty, so a pass reads it only while the chain's cursor row says some
// may wait (`awaiting_price`, read by every pass anyway): whichever process keeps a deposit sets it
// in the same transaction, and it is cleared only under that row's lock once none is left, so the
// process watching the chain next (the lock may move, and a process that lost it may still be
// finishing a pass) always sees it. A per-process flag could not: such a late pass could keep a
// deposit after the new holder had read the table empty.
import { and, asc, eq } from 'drizzle-orm';
import type { Chain } from '../../config.ts';
import { newId } from '../../platform/ids.ts';
import { isPriced, NoCurrentPriceError } from '../../market/index.ts';
import type { TokenSymbol } from '../../tokens/index.ts';
import type { FeedDeps } from './deposit-feed.ts';
import { chainCursors, depositsAwaitingPrice } from './schema.ts';
import type { ChainReader, ObservedTransfer } from './types.ts';

/** A transaction kept for a price that the node no longer knows this long after it was seen is dropped (it never became final). */
export const AWAITING_FORGOTTEN_MS = 60 * 60 * 1000;

export type AwaitingRow = typeof depositsAwaitingPrice.$inferSelect;

/** The intake refused the deposit because its coin has no current price. */
export function isNoPrice(err: unknown, token: TokenSymbol): boolean {
  return err instanceof NoCurrentPriceError && err.token === token;
}

export class AwaitingPrice {
  readonly #deps: FeedDeps;
  readonly #reader: ChainReader;
  readonly #chain: Chain;

  constructor(deps: FeedDeps, reader: ChainReader) {
    this.#deps = deps;
    this.#reader = reader;
    this.#chain = reader.chain;
  }

  /** Keeps transfer `t` of payment `paymentId` (at `address`, as the payment holds it); once per transfer. */
  async keep(paymentId: string, address: string, t: ObservedTransfer, sender: string | undefined, block: number | undefined, at: Date): Promise<void> {
    await this.#deps.db.transaction(async (tx) => {
      // the mark first: it takes the cursor row's lock, which a pass clearing the mark holds too
      await tx.update(chainCursors).set({ awaitingPrice: true }).where(eq(chainCursors.chain, this.#chain));
      await tx.insert(depositsAwaitingPrice).values({
        id: newId('dap', at), chain: this.#chain, paymentId, address, txId: t.txId, token: t.token, amount: t.amount,
        sender: sender ?? null, block: block ?? null, seenAt: at,
      }).onConflictDoNothing();
    });
  }

  /**
   * Records the kept deposits whose coin is priced again (`waiting`: the chain's cursor row, read at
   * the start of this pass, says some may wait; `count`: confirmations of a block; the watcher has
   * verified the chain up to `finished`). `unmatched` takes one no payment takes any more.
   */
  async retry(waiting: boolean, count: (height: bigint) => number, finished: bigint, at: Date, unmatched: (row: AwaitingRow) => Promise<void>): Promise<number> {
    if (!waiting) return 0;
    const rows = await this.#deps.db.orm.select().from(depositsAwaitingPrice)
      .where(eq(depositsAwaitingPrice.chain, this.#chain)).orderBy(asc(depositsAwaitingPrice.seenAt));
    if (rows.length === 0) {
      await this.#unmark();
      return 0;
    }
    const live = this.#deps.market.snapshot(true);
    let recorded = 0;
    for (const row of rows) {
      const token = row.token as TokenSymbol;
      if (!isPriced(live[token])) continue;
      // where its transaction is now: a reorganisation may have moved or dropped it meanwhile
      const state = await this.#reader.txState(row.txId);
      if (state.kind !== 'mined') {
        if ((state.kind === 'unknown' || state.kind === 'conflicted') && at.getTime() - row.seenAt.getTime() > AWAITING_FORGOTTEN_MS) await this.#drop(row);
        continue;
      }
      if (state.height > finished) continue;
      try {
        const kind = await this.#deps.db.transaction(async (tx) => {
          const r = await this.#deps.intake.recordDeposit({ paymentId: row.paymentId }, {
            txId: row.txId, token, amount: row.amount, confirmations: count(state.height), sender: row.sender ?? undefined,
            block: Number(state.height), at: row.seenAt, recordedAt: at,
          }, tx);
          await tx.delete(depositsAwaitingPrice).where(eq(depositsAwaitingPrice.id, row.id));
          return r.kind;
        });
        // (with the block it is mined in: it may have been kept from the mempool)
        if (kind === 'unmatched') await unmatched({ ...row, block: Number(state.height) });
        recorded++;
      } catch (err) {
        // priced a moment ago, not any more: the next pass tries again
        if (!isNoPrice(err, token)) throw err;
      }
    }
    return recorded;
  }

  /** None left: the mark goes, unless a deposit was kept meanwhile (its keep() waits for this row's lock, or committed before it was taken). */
  async #unmark(): Promise<void> {
    await this.#deps.db.transaction(async (tx) => {
      await tx.select({ chain: chainCursors.chain }).from(chainCursors).where(eq(chainCursors.chain, this.#chain)).for('update');
      const [left] = await tx.select({ id: depositsAwaitingPrice.id }).from(depositsAwaitingPrice).where(eq(depositsAwaitingPrice.chain, this.#chain)).limit(1);
      if (!left) await tx.update(chainCursors).set({ awaitingPrice: false }).where(eq(chainCursors.chain, this.#chain));
    });
  }

  async #drop(row: AwaitingRow): Promise<void> {
    await this.#deps.db.orm.delete(depositsAwaitingPrice).where(and(eq(depositsAwaitingPrice.id, row.id), eq(depositsAwaitingPrice.chain, this.#chain)));
  }
}
