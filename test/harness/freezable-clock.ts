// A clock that follows the real one except while a test holds it still. For tests of a per-second
// limit inside a file that otherwise needs time to pass (deadlines, simulations): a loaded machine
// can take more than the limit's one second to make five payments, which the limit then no longer
// counts together; frozen, they all fall in one instant, as the test means them to.
import type { Clock } from '../../src/platform/clock.ts';

export class FreezableClock implements Clock {
  #frozenAt: number | null = null;

  now(): Date {
    return new Date(this.#frozenAt ?? Date.now());
  }

  /** Runs `body` with the clock held at the current instant; real time again afterwards (never earlier than the frozen instant). */
  async frozen<T>(body: () => Promise<T>): Promise<T> {
    this.#frozenAt = Date.now();
    try {
      return await body();
    } finally {
      this.#frozenAt = null;
    }
  }
}
