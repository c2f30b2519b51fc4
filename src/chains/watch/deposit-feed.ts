// Feeds DepositIntake from what a chain watcher saw: a transfer to a watched address becomes a
// deposit of its payment (or, when no payment takes it, an unmatched deposit), and the deposits
// still counting confirmations are counted again against the tip: up, down to 0 when their block
// left the best chain, final at the required count, failed when an orphaned or unmined transaction
// does not come back within the hour (CONTRACT.md "Live chains"). Chain-agnostic: the reader gives
// transfers and transaction states, this never knows which chain it serves.
import { eq } from 'drizzle-orm';
import type { Chain } from '../../config.ts';
import type { Database } from '../../platform/db/index.ts';
import { newId } from '../../platform/ids.ts';
import { isPriced, type MarketSource } from '../../market/index.ts';
import {
  depositUsdValue, findPayment, paymentsAtAddress, pendingChainDeposits, type ChainDeposit, type DepositIntake,
} from '../../payments/index.ts';
import type { AddressIndex } from './address-index.ts';
import { outgoingAttempts } from '../transfers/index.ts';
import { unmatchedDeposits } from './schema.ts';
import { AwaitingPrice, isNoPrice } from './awaiting-price.ts';
import type { ChainReader, ObservedTransfer } from './types.ts';

/** An orphaned transaction not mined again within this long fails (so does an unmined one the node forgot). */
export const ORPHAN_TIMEOUT_MS = 60 * 60 * 1000;

/** The transfers of a block that go to watched addresses (a filter: the database confirms each). */
export function matchTransfers(index: AddressIndex, transfers: readonly ObservedTransfer[]): ObservedTransfer[] {
  const out: ObservedTransfer[] = [];
  for (const t of transfers) if (index.has(t.to, t.tag) || (t.tag !== undefined && index.has(t.to))) out.push(t);
  return out;
}

export interface FeedDeps {
  db: Database;
  intake: DepositIntake;
  market: MarketSource;
}

export class DepositFeed {
  readonly #deps: FeedDeps;
  readonly #reader: ChainReader;
  readonly #chain: Chain;
  readonly #awaiting: AwaitingPrice;

  constructor(deps: FeedDeps, reader: ChainReader) {
    this.#deps = deps;
    this.#reader = reader;
    this.#chain = reader.chain;
    this.#awaiting = new AwaitingPrice(deps, reader);
  }

  /**
   * A transfer to a watched address, in block `height` (undefined: seen in the mempool) with
   * `confirmations`. Returns what became of it.
   */
  async transfer(t: ObservedTransfer, height: bigint | undefined, confirmations: number, at: Date): Promise<'deposit' | 'unmatched' | 'not_ours' | 'own' | 'awaiting_price'> {
    // The service's own transfers to a deposit address (gas top-ups) are no customer's money.
    if (await this.#ours(t.txId)) return 'own';
    const owners = (await paymentsAtAddress(this.#deps.db.orm, this.#chain, this.#reader.chainAddress?.(t.to) ?? t.to))
      .filter((o) => this.#reader.normalizeAddress(o.depositAddress) === t.to);
    if (owners.length === 0) return 'not_ours';
    const owner = owners.find((o) => (o.destinationTag ?? undefined) === t.tag);
    if (!owner) {
      await this.#unmatched({ ...t, to: owners[0].depositAddress }, height, at, null);
      return 'unmatched';
    }
    const block = height === undefined ? undefined : Number(height);
    const sender = t.from && (this.#reader.chainAddress?.(t.from) ?? t.from);
    let r;
    try {
      r = await this.#deps.intake.recordDeposit({ paymentId: owner.id }, { txId: t.txId, token: t.token, amount: t.amount, confirmations, sender, block, at });
    } catch (err) {
      // another coin with no current price: kept aside, so the cursor moves on (awaiting-price.ts)
      if (!isNoPrice(err, t.token)) throw err;
      await this.#awaiting.keep(owner.id, owner.depositAddress, t, sender, block, at);
      return 'awaiting_price';
    }
    if (r.kind === 'unmatched') {
      await this.#unmatched({ ...t, to: owner.depositAddress }, height, at, { paymentId: owner.id, merchantId: owner.merchantId });
      return 'unmatched';
    }
    // Seen before (mempool, or a block a reorganisation took): it counts again from this block.
    const d = r.deposits.find((x) => x.txId === t.txId);
    if (d && d.status === 'pending' && block !== undefined && d.block !== block) {
      await this.#deps.intake.setInclusion({ paymentId: owner.id }, t.txId, { block, confirmations }, at);
    }
    // Failed (replaced in our node's mempool, or not seen for an hour) yet mined: the money is there.
    if (d && d.status === 'failed' && block !== undefined) {
      await this.#deps.intake.revive({ paymentId: owner.id }, t.txId, { block, confirmations }, at);
    }
    return 'deposit';
  }

  /**
   * Counts the chain's waiting deposits again (`count`: the confirmations of a block; the watcher
   * has verified the chain up to `finished`; `pooled`: transactions in the node's mempool as this
   * pass read it, which wait without asking the node about each; `awaitingPrice`: the cursor row
   * says deposits may wait for a price, awaiting-price.ts).
   */
  async recount(count: (height: bigint) => number, finished: bigint, at: Date, pooled?: ReadonlySet<string>, awaitingPrice = true): Promise<void> {
    await this.#awaiting.retry(awaitingPrice, count, finished, at, async (row) => {
      // kept for a payment: like any transfer to its address after it closed, it shows in that
      // payment's trail too (read by id: an XRP address is every XRP payment's)
      const owner = await findPayment(this.#deps.db.orm, row.paymentId);
      await this.#unmatched(
        { txId: row.txId, to: row.address, token: row.token as ObservedTransfer['token'], amount: row.amount },
        row.block === null ? undefined : BigInt(row.block), row.seenAt, owner ? { paymentId: owner.id, merchantId: owner.merchantId } : null,
      );
    });
    for (const d of await pendingChainDeposits(this.#deps.db.orm, this.#chain)) {
      if (d.block !== null) {
        if (BigInt(d.block) > finished) continue;
        const confirmations = count(BigInt(d.block));
        if (confirmations > d.confirmations) await this.#deps.intake.setInclusion({ paymentId: d.paymentId }, d.txId, { block: d.block, confirmations }, at);
        continue;
      }
      // never mined and in the mempool now: nothing changes for it (one left its block is timed by #unmined)
      if (!d.orphanedAt && pooled?.has(d.txId)) continue;
      await this.#unmined(d, count, finished, at);
    }
  }

  async #ours(txId: string): Promise<boolean> {
    const [row] = await this.#deps.db.orm.select({ id: outgoingAttempts.transferId }).from(outgoingAttempts).where(eq(outgoingAttempts.txId, txId)).limit(1);
    return row !== undefined;
  }

  /** Drops a deposit whose block left the best chain to 0 confirmations. */
  orphan(d: ChainDeposit, at: Date): Promise<unknown> {
    return this.#deps.intake.setInclusion({ paymentId: d.paymentId }, d.txId, { block: null, confirmations: 0 }, at);
  }

  /** A deposit with no block: mined again (it counts again), in the mempool (it waits), or gone (failed after the hour). */
  async #unmined(d: ChainDeposit, count: (height: bigint) => number, finished: bigint, at: Date): Promise<void> {
    const state = await this.#reader.txState(d.txId);
    const ref = { paymentId: d.paymentId };
    if (state.kind === 'mined' && state.height <= finished) {
      await this.#deps.intake.setInclusion(ref, d.txId, { block: Number(state.height), confirmations: count(state.height) }, at);
      return;
    }
    if (state.kind === 'conflicted') {
      await this.#deps.intake.markFailed(ref, d.txId, at);
      return;
    }
    if (state.kind === 'mined') return;
    // Orphaned: the hour runs from leaving its block. Never mined: from when it was seen, while the node does not hold it.
    const since = d.orphanedAt ?? (state.kind === 'unknown' ? d.seenAt : null);
    if (since && at.getTime() - since.getTime() > ORPHAN_TIMEOUT_MS) await this.#deps.intake.markFailed(ref, d.txId, at);
  }

  /** `t.to` is the address as the payment holds it. */
  async #unmatched(t: ObservedTransfer, height: bigint | undefined, at: Date, owner: { paymentId: string; merchantId: string } | null): Promise<void> {
    // Only a mined transfer moved money: one in the mempool (which may never be mined, or be
    // replaced) is recorded when its block is finished, with that block.
    if (height === undefined) return;
    const m = this.#deps.market.snapshot(true)[t.token];
    await this.#deps.db.orm.insert(unmatchedDeposits).values({
      id: newId('umd', at), chain: this.#chain, token: t.token, address: t.to, destinationTag: t.tag ?? null, txId: t.txId,
      amount: t.amount, usdValue: m && isPriced(m) ? depositUsdValue(t.token, t.amount, m.rate).toFixed() : null,
      block: height === undefined ? null : Number(height), merchantId: owner?.merchantId ?? null, paymentId: owner?.paymentId ?? null, seenAt: at,
    }).onConflictDoNothing();
  }
}
