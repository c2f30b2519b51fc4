// "N a second, bursts of B" limits (spec 8, referral payout requests): a token bucket of B tokens
// refilled at N a second, kept as GCRA's theoretical arrival time (TAT) per key. A request is
// admitted when the TAT is at most (B − 1) intervals ahead of now; admitting moves the TAT one
// interval on. Refused requests change nothing. In memory for one process; with REDIS_URL the
// TAT lives in Redis, updated by a Lua script, so the limit holds across processes (falling back
// to this process's own count while Redis cannot answer, as the sliding-window limiter does).
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Logger } from './logger.ts';

export interface BurstLimiter {
  /** True when the request is admitted (and counted). */
  take(key: string, perSecond: number, burst: number, nowMs: number): Promise<boolean>;
  close?(): Promise<void>;
}

/** Pure GCRA step: the next TAT when admitted, or null when refused. */
export function gcra(tat: number | undefined, nowMs: number, intervalMs: number, burst: number): number | null {
  const start = tat === undefined || tat < nowMs ? nowMs : tat;
  if (start - nowMs > (burst - 1) * intervalMs) return null;
  return start + intervalMs;
}

const intervalOf = (perSecond: number): number => Math.ceil(1000 / perSecond);

export class MemoryBurstLimiter implements BurstLimiter {
  readonly #tat = new Map<string, number>();
  #takes = 0;

  async take(key: string, perSecond: number, burst: number, nowMs: number): Promise<boolean> {
    if (++this.#takes % 10_000 === 0) for (const [k, t] of this.#tat) if (t <= nowMs) this.#tat.delete(k);
    const next = gcra(this.#tat.get(key), nowMs, intervalOf(perSecond), burst);
    if (next === null) return false;
    this.#tat.set(key, next);
    return true;
  }
}

// KEYS[1]: the key's TAT. ARGV: now ms, interval ms, tolerance ms ((burst − 1) intervals).
const TAKE_SCRIPT = `
local now = tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
if tat - now > tonumber(ARGV[3]) then return 0 end
local nt = tat + tonumber(ARGV[2])
redis.call('SET', KEYS[1], string.format('%d', nt), 'PX', string.format('%d', nt - now))
return 1
`;
const KEY_PREFIX = 'gw:burst:';
const WARN_EVERY_MS = 30_000;

export class RedisBurstLimiter implements BurstLimiter {
  readonly #redis: Redis;
  readonly #fallback = new MemoryBurstLimiter();
  readonly #log: Logger | null;
  #lastWarn = 0;

  constructor(url: string, log: Logger | null = null) {
    // Loaded here, not at module load: without REDIS_URL the client library is never needed.
    const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.#redis = new RedisClient(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: false });
    this.#redis.on('error', (err: unknown) => this.#warn(err));
    this.#log = log;
  }

  async take(key: string, perSecond: number, burst: number, nowMs: number): Promise<boolean> {
    const interval = intervalOf(perSecond);
    try {
      const res = await this.#redis.eval(TAKE_SCRIPT, 1, KEY_PREFIX + key, String(nowMs), String(interval), String((burst - 1) * interval));
      return res === 1;
    } catch (err) {
      this.#warn(err);
      return this.#fallback.take(key, perSecond, burst, nowMs);
    }
  }

  /** Resolves once connected (tests use it to skip when no server answers). */
  async ready(timeoutMs = 1000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.#redis.status === 'ready') return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.#redis.status === 'ready';
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }

  #warn(err: unknown): void {
    const now = Date.now();
    if (now - this.#lastWarn < WARN_EVERY_MS) return;
    this.#lastWarn = now;
    this.#log?.warn({ err }, 'redis burst limiter unavailable; counting in this process meanwhile');
  }
}

export function createBurstLimiter(redisUrl: string | null, log: Logger | null = null): BurstLimiter {
  return redisUrl ? new RedisBurstLimiter(redisUrl, log) : new MemoryBurstLimiter();
}
