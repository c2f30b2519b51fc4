// Deposits that wait for their coin's price. A deposit in another coin than its payment's is valued
// at that coin's current market price; while the coin has none (stale sources, a stablecoin off its
// peg) it cannot be recorded, yet the chain's cursor must move on. So the transfer is kept here, in
// the database (never lost), and on each watcher pass once the coin is priced again it is recorded
// as the payment's deposit exactly as it would have been when seen: the same `seen_at` (so the late
// window is judged from when it arrived), its block's current confirmation count, valued at the
// price of the moment it is recorded. Its events are dated when it is recorded.
import { and, asc, eq } from 'drizzle-orm';
import type { Chain } from '../../config.ts';
import { newId } from '../../platform/ids.ts';
import { isPriced, NoCurrentPriceError } from '../../market/index.ts';
import type { TokenSymbol } from '../../tokens/index.ts';
import type { FeedDeps } from './deposit-feed.ts';
import { depositsAwaitingPrice } from './schema.ts';
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
    await this.#deps.db.orm.insert(depositsAwaitingPrice).values({
      id: newId('dap', at), chain: this.#chain, paymentId, address, txId: t.txId, token: t.token, amount: t.amount,
      sender: sender ?? null, block: block ?? null, seenAt: at,
    }).onConflictDoNothing();
  }

  /**
   * Records the kept deposits whose coin is priced again (`count`: confirmations of a block; the
   * watcher has verified the chain up to `finished`). `unmatched` takes one no payment takes any more.
   */
  async retry(count: (height: bigint) => number, finished: bigint, at: Date, unmatched: (row: AwaitingRow) => Promise<void>): Promise<number> {
    const rows = await this.#deps.db.orm.select().from(depositsAwaitingPrice)
      .where(eq(depositsAwaitingPrice.chain, this.#chain)).orderBy(asc(depositsAwaitingPrice.seenAt));
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
        if (kind === 'unmatched') await unmatched(row);
        recorded++;
      } catch (err) {
        // priced a moment ago, not any more: the next pass tries again
        if (!isNoPrice(err, token)) throw err;
      }
    }
    return recorded;
  }

  async #drop(row: AwaitingRow): Promise<void> {
    await this.#deps.db.orm.delete(depositsAwaitingPrice).where(and(eq(depositsAwaitingPrice.id, row.id), eq(depositsAwaitingPrice.chain, this.#chain)));
  }
}
