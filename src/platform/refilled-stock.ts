// Items handed out one at a time from a stock that is refilled a block at a time, per key: one
// refill at a time per key (blocks arrive in the order they were asked for), and whoever finds the
// stock empty waits for that refill. With `refillBelow`, the next block is asked for as soon as the
// stock runs below it, and blocks keep coming until it holds that many again, so under steady
// demand nobody waits. Used for numbers reserved from database sequences and for deposit
// addresses derived ahead.
export class RefilledStock<T> {
  readonly #fill: (key: string, first: boolean) => Promise<T[]>;
  readonly #refillBelow: number;
  readonly #items = new Map<string, T[]>();
  readonly #pending = new Map<string, Promise<void>>();

  /** `fill` gets a block for a key (`first`: none was filled for it before); it is called one at a time per key. */
  constructor(fill: (key: string, first: boolean) => Promise<T[]>, opts: { refillBelow?: number } = {}) {
    this.#fill = fill;
    this.#refillBelow = opts.refillBelow ?? 0;
  }

  /** The next item of a key, in the order the blocks gave them. */
  async take(key: string): Promise<T> {
    for (;;) {
      const stock = this.#items.get(key);
      if (stock && stock.length > 0) {
        const item = stock.shift()!;
        if (stock.length < this.#refillBelow) this.#refillAhead(key);
        return item;
      }
      await this.#refill(key);
    }
  }

  /** Items of a key in stock now. */
  held(key: string): number {
    return this.#items.get(key)?.length ?? 0;
  }

  #refillAhead(key: string): void {
    this.#refill(key).catch(() => {
      // Asked for ahead of need: a failure is met again, and reported, by the caller that waits for it.
    });
  }

  #refill(key: string): Promise<void> {
    let refill = this.#pending.get(key);
    if (!refill) {
      let gave = 0;
      refill = this.#fill(key, !this.#items.has(key))
        .then((block) => { gave = block.length; this.#items.set(key, [...(this.#items.get(key) ?? []), ...block]); })
        .finally(() => this.#pending.delete(key));
      this.#pending.set(key, refill);
      // Still below the mark once this block is in (a burst took more than a block, or it is the
      // first fill): the next block follows at once rather than at the next take. An empty block
      // stops the chain, so a source that has run dry is not asked again and again.
      refill.then(() => { if (gave > 0 && this.held(key) < this.#refillBelow) this.#refillAhead(key); }, () => {});
    }
    return refill;
  }
}
