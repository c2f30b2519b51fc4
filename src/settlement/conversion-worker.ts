// Carries live treasury conversions along (conversions.ts) every `intervalMs`: a conversion's next
// step waits on a chain (its sweep final, its payout funded), so it is looked at as often as the
// transfer worker looks at the chains. Several processes may run it: each step locks its settlement.
import type { Logger } from '../platform/logger.ts';
import { CoalescedRun } from '../platform/coalesced-run.ts';

export class ConversionWorker {
  readonly #advance: () => Promise<number>;
  readonly #log: Logger;
  readonly #intervalMs: number;
  readonly #run = new CoalescedRun(() => this.#pass(), () => this.#stopped);
  #stopped = true;
  #timer: NodeJS.Timeout | null = null;

  constructor(advance: () => Promise<number>, log: Logger, intervalMs: number) {
    this.#advance = advance;
    this.#log = log;
    this.#intervalMs = intervalMs;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#timer = setInterval(() => this.#run.request(), this.#intervalMs);
    this.#timer.unref();
    this.#run.request();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#run.settled();
  }

  async #pass(): Promise<void> {
    try {
      await this.#advance();
    } catch (err) {
      this.#log.warn({ err: (err as Error).message }, 'conversions: pass failed; tried again');
    }
  }
}
