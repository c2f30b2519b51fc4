// Caps attempts in flight: N overall and M per destination host. A receiver that hangs for the whole
// timeout then holds at most M slots, and attempts to every other host keep moving past it.

export interface LimiterOptions {
  maxInFlight: number;
  maxPerHost: number;
}

interface Waiter {
  host: string;
  start: () => void;
}

/** The key attempts are limited by: the URL's host name, lower case ('' for an unparsable URL). */
export function destinationKey(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

export class AttemptLimiter {
  readonly #max: number;
  readonly #perHost: number;
  #inFlight = 0;
  readonly #byHost = new Map<string, number>();
  readonly #queue: Waiter[] = [];

  constructor(options: LimiterOptions) {
    for (const [name, v] of Object.entries(options)) {
      if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a whole number of at least 1, got ${v}`);
    }
    this.#max = options.maxInFlight;
    this.#perHost = options.maxPerHost;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  get waiting(): number {
    return this.#queue.length;
  }

  inFlightFor(host: string): number {
    return this.#byHost.get(host) ?? 0;
  }

  /** True when an attempt to `host` could start now. */
  hasRoomFor(host: string): boolean {
    return this.#inFlight < this.#max && this.inFlightFor(host) < this.#perHost;
  }

  /** Takes a slot at once, or gives null; the returned release may be called more than once. */
  tryAcquire(host: string): (() => void) | null {
    if (!this.hasRoomFor(host)) return null;
    this.#inFlight += 1;
    this.#byHost.set(host, this.inFlightFor(host) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight -= 1;
      const left = this.inFlightFor(host) - 1;
      if (left === 0) this.#byHost.delete(host);
      else this.#byHost.set(host, left);
      this.#pump();
    };
  }

  /** Runs `task` when a slot is free; waiting tasks for a full host let those for other hosts go first. */
  run<T>(host: string, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        const release = this.tryAcquire(host)!;
        Promise.resolve().then(task).then(resolve, reject).finally(release);
      };
      if (this.#queue.length === 0 && this.hasRoomFor(host)) start();
      else {
        this.#queue.push({ host, start });
        this.#pump();
      }
    });
  }

  // Starts, in arrival order, every waiting task whose host has room, while any room is left.
  #pump(): void {
    for (let i = 0; i < this.#queue.length && this.#inFlight < this.#max;) {
      const waiter = this.#queue[i];
      if (this.hasRoomFor(waiter.host)) {
        this.#queue.splice(i, 1);
        waiter.start();
      } else {
        i += 1;
      }
    }
  }
}
