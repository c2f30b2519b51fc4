// Writes of concurrent requests sent as one statement (group write, as the payment creation writer
// does): what arrives in one event-loop turn goes together, so under load a dozen claims or stored
// answers cost one round trip, one plan and one commit (one WAL flush) instead of twelve. A lone write goes
// at the end of its turn. A group that fails is run again item by item, so one bad item (or a
// deadlock between two groups) fails only itself.

/** Most items one statement carries; a longer queue is split. */
const MAX_GROUP = 100;

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/** `run` answers one result for each item, in the items' order. */
export class GroupedStatements<T, R = void> {
  readonly #run: (items: T[]) => Promise<R[]>;
  readonly #maxInFlight: number;
  /** Items that must not share a statement (the same row twice) give the same identity. */
  readonly #identity: (item: T) => string;
  #queue: Waiting<T, R>[] = [];
  #inFlight = 0;
  #scheduled = false;

  constructor(run: (items: T[]) => Promise<R[]>, opts: { maxInFlight: number; identity: (item: T) => string }) {
    this.#run = run;
    this.#maxInFlight = Math.max(1, opts.maxInFlight);
    this.#identity = opts.identity;
  }

  write(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#maxInFlight || this.#queue.length === 0) return;
    this.#scheduled = true;
    // After the current turn: the writes of the requests answered together go together.
    setImmediate(() => {
      this.#scheduled = false;
      while (this.#inFlight < this.#maxInFlight && this.#queue.length > 0) void this.#send(this.#take());
    });
  }

  /** The next group: up to MAX_GROUP items, each identity once (a repeat waits for a later group). */
  #take(): Waiting<T, R>[] {
    const group: Waiting<T, R>[] = [];
    const later: Waiting<T, R>[] = [];
    const seen = new Set<string>();
    let i = 0;
    for (; i < this.#queue.length && group.length < MAX_GROUP; i++) {
      const w = this.#queue[i];
      const id = this.#identity(w.item);
      if (seen.has(id)) later.push(w);
      else { seen.add(id); group.push(w); }
    }
    this.#queue = [...later, ...this.#queue.slice(i)];
    return group;
  }

  async #send(group: Waiting<T, R>[]): Promise<void> {
    this.#inFlight++;
    try {
      const results = await this.#run(group.map((w) => w.item));
      group.forEach((w, i) => w.resolve(results[i]));
    } catch (err) {
      if (group.length === 1) group[0].reject(err);
      else for (const w of group) this.#run([w.item]).then(([result]) => w.resolve(result), w.reject);
    } finally {
      this.#inFlight--;
      this.#schedule();
    }
  }
}
