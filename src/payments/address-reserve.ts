// Deposit addresses ready to hand out, per chain and mode: their numbers reserved from the
// database sequence a block at a time (NumberReserve), their addresses derived for the whole block
// off the event loop (DepositAddressDeriver). The next block is prepared as soon as the current one
// starts being used (double buffering), so under steady creation a payment neither waits for the
// sequence nor derives: a block of 100 is derived in ~15 ms and lasts ~50 ms at 2,000 payments a
// second. The first block of a chain and mode is small: it is derived inline while the worker starts.
// Numbers are never handed out twice; those a process held when it stopped are simply skipped.
import type { Chain } from '../config.ts';
import type { DepositAddressDeriver } from '../chains/addresses/index.ts';
import { NumberReserve } from './repository.ts';

export interface DepositAddress {
  index: number;
  address: string;
}

/** Addresses reserved and derived together. */
const BLOCK = 100;
const FIRST_BLOCK = 10;

export class DepositAddressReserve {
  readonly #numbers: NumberReserve;
  readonly #deriver: DepositAddressDeriver;
  readonly #ready = new Map<string, DepositAddress[]>();
  readonly #pending = new Map<string, Promise<void>>();

  constructor(numbers: NumberReserve, deriver: DepositAddressDeriver) {
    this.#numbers = numbers;
    this.#deriver = deriver;
  }

  /** A never-used deposit address of a chain and mode, with its derivation index. */
  async next(chain: Chain, livemode: boolean): Promise<DepositAddress> {
    const seq = NumberReserve.addressSequence(chain, livemode);
    for (;;) {
      const ready = this.#ready.get(seq);
      if (ready && ready.length > 0) {
        const a = ready.shift()!;
        if (ready.length < BLOCK) void this.#refill(seq, chain, livemode).catch(() => {
          // Prepared ahead of need: a failure here is met again, and reported, by the payment that waits for it.
        });
        return a;
      }
      await this.#refill(seq, chain, livemode);
    }
  }

  /** One refill at a time per sequence: blocks arrive in the order they were reserved. */
  #refill(seq: string, chain: Chain, livemode: boolean): Promise<void> {
    let refill = this.#pending.get(seq);
    if (!refill) {
      refill = (async () => {
        const indexes = await this.#numbers.reserveBlock(seq, this.#ready.has(seq) ? BLOCK : FIRST_BLOCK);
        const addresses = await this.#deriver.block(chain, livemode, indexes);
        const ready = this.#ready.get(seq) ?? [];
        indexes.forEach((index, i) => ready.push({ index, address: addresses[i] }));
        this.#ready.set(seq, ready);
      })().finally(() => this.#pending.delete(seq));
      this.#pending.set(seq, refill);
    }
    return refill;
  }
}
