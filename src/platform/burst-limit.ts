// "N a second, bursts of B" limits (spec 8, referral payout requests): a token bucket of B tokens
// refilled at N a second, kept as GCRA's theoretical arrival time (TAT) per key. A request is
// admitted when the TAT is at most (B − 1) intervals ahead of now; admitting moves the TAT one
// interval on. Refused requests change nothing. In memory for one process; with REDIS_URL the
// TAT lives in Redis, updated by a Lua script, so the limit holds across processes (falling back
// to this process's own count while Redis cannot answer, as the sliding-window limiter does).
import type { Logger } from './logger.ts';
import { RedisScript } from './redis-script.ts';

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

export class RedisBurstLimiter implements BurstLimiter {
  readonly #script: RedisScript;
  readonly #fallback = new MemoryBurstLimiter();

  constructor(url: string, log: Logger | null = null) {
    this.#script = new RedisScript(url, TAKE_SCRIPT, log, 'redis burst limiter unavailable; counting in this process meanwhile');
  }

  async take(key: string, perSecond: number, burst: number, nowMs: number): Promise<boolean> {
    const interval = intervalOf(perSecond);
    try {
      return (await this.#script.run(KEY_PREFIX + key, [String(nowMs), String(interval), String((burst - 1) * interval)])) === 1;
    } catch (err) {
      this.#script.warn(err);
      return this.#fallback.take(key, perSecond, burst, nowMs);
    }
  }

  /** Resolves once connected (tests use it to skip when no server answers). */
  ready(timeoutMs = 1000): Promise<boolean> {
    return this.#script.ready(timeoutMs);
  }

  async close(): Promise<void> {
    this.#script.close();
  }
}

export function createBurstLimiter(redisUrl: string | null, log: Logger | null = null): BurstLimiter {
  return redisUrl ? new RedisBurstLimiter(redisUrl, log) : new MemoryBurstLimiter();
}
