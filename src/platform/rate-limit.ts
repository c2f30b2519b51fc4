// Sliding-window rate limits: at most `limit` admitted requests in ANY window of `windowMs`
// (CONTRACT.md: refused requests do not count; no lockout beyond that). In memory for one process;
// RedisRateLimiter shares the count between processes.
export interface RateLimiter {
  /** True when the request is admitted (and counted). */
  take(key: string, limit: number, windowMs: number, nowMs: number): Promise<boolean>;
  /** How many requests under `key` were admitted in the window ending now (nothing is counted). */
  count(key: string, windowMs: number, nowMs: number): Promise<number>;
}

export class MemoryRateLimiter implements RateLimiter {
  readonly #hits = new Map<string, number[]>();
  #sweeps = 0;

  async take(key: string, limit: number, windowMs: number, nowMs: number): Promise<boolean> {
    const since = nowMs - windowMs;
    let list = this.#hits.get(key);
    if (!list) {
      list = [];
      this.#hits.set(key, list);
    }
    while (list.length > 0 && list[0] <= since) list.shift();
    if (++this.#sweeps % 10_000 === 0) this.#sweep(since);
    if (list.length >= limit) return false;
    list.push(nowMs);
    return true;
  }

  async count(key: string, windowMs: number, nowMs: number): Promise<number> {
    const list = this.#hits.get(key);
    return list ? list.filter((t) => t > nowMs - windowMs).length : 0;
  }

  /** Forgets keys idle for a whole window, so memory follows active clients only. */
  #sweep(since: number): void {
    for (const [k, v] of this.#hits) if (v.length === 0 || v[v.length - 1] <= since) this.#hits.delete(k);
  }
}
