// Deposit addresses ready to hand out, per chain and mode: their numbers reserved from the
// database sequence a block at a time (NumberReserve), their addresses derived for the whole block
// off the event loop (DepositAddressDeriver). The next block is prepared as soon as the current one
// starts being used (double buffering), so under steady creation a payment neither waits for the
// sequence nor derives: a block of 100 is derived in ~15 ms and lasts ~50 ms at 2,000 payments a
// second. The first block of a chain and mode is small: it is derived inline while the worker starts.
// Numbers are never handed out twice; those a process held when it stopped are simply skipped.
import type { Chain } from '../config.ts';
import type { DepositAddressDeriver } from '../chains/addresses/index.ts';
import { RefilledStock } from '../platform/refilled-stock.ts';
import { NumberReserve } from './repository.ts';

export interface DepositAddress {
  index: number;
  address: string;
}

/** Addresses reserved and derived together. */
const BLOCK = 100;
const FIRST_BLOCK = 10;

export class DepositAddressReserve {
  readonly #stock: RefilledStock<DepositAddress>;
  /** The chain and mode of each address sequence asked for so far (what its blocks are derived for). */
  readonly #wanted = new Map<string, { chain: Chain; livemode: boolean }>();

  constructor(numbers: NumberReserve, deriver: DepositAddressDeriver) {
    this.#stock = new RefilledStock(async (seq, first) => {
      const { chain, livemode } = this.#wanted.get(seq)!;
      const indexes = await numbers.reserveBlock(seq, first ? FIRST_BLOCK : BLOCK);
      const addresses = await deriver.block(chain, livemode, indexes);
      return indexes.map((index, i) => ({ index, address: addresses[i] }));
    }, { refillBelow: BLOCK });
  }

  /** A never-used deposit address of a chain and mode, with its derivation index. */
  next(chain: Chain, livemode: boolean): Promise<DepositAddress> {
    const seq = NumberReserve.addressSequence(chain, livemode);
    if (!this.#wanted.has(seq)) this.#wanted.set(seq, { chain, livemode });
    return this.#stock.take(seq);
  }
}
