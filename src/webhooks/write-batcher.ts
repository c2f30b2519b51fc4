// Groups writes that arrive close together into one call: the first write starts a flush at the
// next turn of the event loop, writes arriving during a flush wait for the next one. Each caller's
// promise settles when the flush holding its item has committed (or failed).

export class WriteBatcher<T> {
  readonly #flush: (items: T[]) => Promise<void>;
  readonly #max: number;
  #queue: { item: T; done: (err?: unknown) => void }[] = [];
  #flushing: Promise<void> | null = null;

  constructor(flush: (items: T[]) => Promise<void>, max = 500) {
    this.#flush = flush;
    this.#max = max;
  }

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ item, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!this.#flushing) this.#flushing = this.#run();
    });
  }

  async #run(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#max);
      try {
        await this.#flush(batch.map((b) => b.item));
        for (const b of batch) b.done();
      } catch (err) {
        for (const b of batch) b.done(err ?? new Error('flush failed'));
      }
    }
    this.#flushing = null;
  }
}
