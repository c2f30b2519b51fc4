// What a reorganisation does to deposits (CONTRACT.md "Live chains"): a waiting deposit whose block
// left the best chain drops to 0 confirmations and waits for its transaction (DepositFeed counts it
// again if it is mined again, or fails it after the hour); a deposit already final is never
// reversed: the reorganisation deeper than CONFIRMATIONS_<CHAIN> is logged, counted in /metrics
// and written to the merchant's audit log for the service's team. Deposits first, then the cursor
// with the audit entries in its transaction: a crash in between finds the same reorganisation again
// and changes nothing twice (an entry committed on its own would be written again, or lost when the
// rollback was the one to commit). The counters and the error log follow the commit, so a rollback
// that failed and is handled again is counted and logged once.
import type { Chain } from '../../config.ts';
import type { Database } from '../../platform/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import { recordAudit } from '../../audit/index.ts';
import { chainDepositsAbove, type ChainDeposit } from '../../payments/index.ts';
import type { CursorStore } from './cursor-store.ts';
import type { DepositFeed } from './deposit-feed.ts';
import type { CommonAncestor } from './reorg.ts';
import type { BlockRef } from './types.ts';

export const DEEP_REORG_ACTION = 'chain.deep_reorganisation';

export interface ReorgCounters {
  reorg(chain: Chain, depth: bigint): void;
  deepReorg(chain: Chain): void;
}

export class ReorgHandler {
  readonly #db: Database;
  readonly #cursors: CursorStore;
  readonly #feed: DepositFeed;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #counters: ReorgCounters;

  constructor(deps: { db: Database; cursors: CursorStore; feed: DepositFeed; clock: Clock; log: Logger; counters: ReorgCounters }) {
    this.#db = deps.db;
    this.#cursors = deps.cursors;
    this.#feed = deps.feed;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#counters = deps.counters;
  }

  async handle(chain: Chain, from: BlockRef, ancestor: CommonAncestor): Promise<void> {
    const now = this.#clock.now();
    const deep: ChainDeposit[] = [];
    this.#log.warn({ chain, from: String(from.height), ancestor: String(ancestor.block.height), depth: String(ancestor.depth), beyondKept: ancestor.beyondKept },
      'chain watch: reorganisation; going back to the common ancestor');
    for (const d of await chainDepositsAbove(this.#db.orm, chain, ancestor.block.height)) {
      if (d.status === 'pending') {
        await this.#feed.orphan(d, now);
        continue;
      }
      deep.push(d);
    }
    await this.#cursors.rollback(chain, from, ancestor.block, now, async (tx) => {
      for (const d of deep) {
        await recordAudit(tx, {
          merchantId: d.merchantId, action: DEEP_REORG_ACTION, actor: { kind: 'system' }, subject: d.txId, paymentId: d.paymentId,
          after: { chain, tx_id: d.txId, block: d.block, common_ancestor: Number(ancestor.block.height) },
          note: 'a reorganisation deeper than the confirmations required took the block of this final deposit', at: now,
        });
      }
    });
    // Counted and logged once the rollback committed (it throws when the cursor moved): a rollback
    // that failed is followed again, by this pass or another process, and counted then.
    this.#counters.reorg(chain, ancestor.depth);
    for (const d of deep) {
      this.#counters.deepReorg(chain);
      this.#log.error({ chain, payment: d.paymentId, tx: d.txId, block: d.block }, 'chain watch: a reorganisation took the block of a final deposit; its payment is not reversed');
    }
  }
}
