// The sliding-window limit of rate-limit.ts shared by every process through Redis: one sorted set
// per key holds the admitted requests' times; a Lua script trims, counts and adds atomically, so
// two processes can never both admit the N+1st request. Refused requests are not added (CONTRACT.md).
// When Redis cannot answer, the limiter falls back to this process's own memory count (a limit
// per process is better than none, and better than refusing every sign-in).
import crypto from 'node:crypto';
import { MemoryRateLimiter, type RateLimiter } from './rate-limit.ts';
import type { Logger } from './logger.ts';
import { RedisScript } from './redis-script.ts';

// One script for both operations, so the limiter needs one connection. KEYS[1]: the window's
// sorted set. ARGV: now ms, window ms, then for a take the limit and a unique member; with only the
// first two it counts (and answers the count).
const WINDOW_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local n = redis.call('ZCARD', KEYS[1])
if ARGV[3] == nil then return n end
if n >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;
const KEY_PREFIX = 'gw:rl:';

export class RedisRateLimiter implements RateLimiter {
  readonly #script: RedisScript;
  readonly #fallback = new MemoryRateLimiter();

  constructor(url: string, log: Logger | null = null) {
    this.#script = new RedisScript(url, WINDOW_SCRIPT, log, 'redis rate limiter unavailable; counting in this process meanwhile');
  }

  async count(key: string, windowMs: number, nowMs: number): Promise<number> {
    try {
      return Number(await this.#script.run(KEY_PREFIX + key, [String(nowMs), String(windowMs)]));
    } catch (err) {
      this.#script.warn(err);
      return this.#fallback.count(key, windowMs, nowMs);
    }
  }

  async take(key: string, limit: number, windowMs: number, nowMs: number): Promise<boolean> {
    try {
      const res = await this.#script.run(KEY_PREFIX + key, [String(nowMs), String(windowMs), String(limit), `${nowMs}:${crypto.randomBytes(6).toString('hex')}`]);
      return res === 1;
    } catch (err) {
      this.#script.warn(err);
      return this.#fallback.take(key, limit, windowMs, nowMs);
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

/** The limiter the configuration asks for: Redis when REDIS_URL is set, else this process's memory. */
export function createRateLimiter(redisUrl: string | null, log: Logger | null = null): RateLimiter & { close?: () => Promise<void> } {
  return redisUrl ? new RedisRateLimiter(redisUrl, log) : new MemoryRateLimiter();
}
