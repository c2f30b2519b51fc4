// One background task that many events may ask for: it runs at most once at a time, and any
// number of requests made while it runs are answered by one more run right after. The outbox
// dispatcher, the timer scheduler and the webhook worker are woken this way on every commit.
export class CoalescedRun {
  readonly #task: () => Promise<void>;
  readonly #stopped: () => boolean;
  #running: Promise<void> | null = null;
  #again = false;

  /** `task` must handle its own errors (it runs in the background); nothing runs once `stopped()` says so. */
  constructor(task: () => Promise<void>, stopped: () => boolean) {
    this.#task = task;
    this.#stopped = stopped;
  }

  request(): void {
    if (this.#stopped()) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#task().finally(() => {
      this.#running = null;
      if (this.#again) {
        this.#again = false;
        this.request();
      }
    });
  }

  /** Resolves when no run is under way (after stop: when the last one has ended). */
  async settled(): Promise<void> {
    await this.#running;
  }
}
