// Dashboard figures pushed at most once per 2 seconds per merchant and mode (spec 6.3, 8): the
// first change pushes at once, later ones within the window are folded into one push at its end.
export class FiguresThrottle {
  readonly #intervalMs: number;
  readonly #push: (merchantId: string, livemode: boolean) => void;
  /** key → whether another push is owed when the window closes. */
  readonly #windows = new Map<string, { owed: boolean; timer: NodeJS.Timeout }>();

  constructor(intervalMs: number, push: (merchantId: string, livemode: boolean) => void) {
    this.#intervalMs = intervalMs;
    this.#push = push;
  }

  request(merchantId: string, livemode: boolean): void {
    const key = `${merchantId}:${livemode}`;
    const open = this.#windows.get(key);
    if (open) {
      open.owed = true;
      return;
    }
    this.#push(merchantId, livemode);
    this.#open(key, merchantId, livemode);
  }

  #open(key: string, merchantId: string, livemode: boolean): void {
    const w = {
      owed: false,
      timer: setTimeout(() => {
        this.#windows.delete(key);
        if (w.owed) {
          this.#push(merchantId, livemode);
          this.#open(key, merchantId, livemode);
        }
      }, this.#intervalMs),
    };
    w.timer.unref();
    this.#windows.set(key, w);
  }

  stop(): void {
    for (const w of this.#windows.values()) clearTimeout(w.timer);
    this.#windows.clear();
  }
}
