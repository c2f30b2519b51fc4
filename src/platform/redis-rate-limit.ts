// The sliding-window limit of rate-limit.ts shared by every process through Redis: one sorted set
// per key holds the admitted requests' times; a Lua script trims, counts and adds atomically, so
// two processes can never both admit the N+1st request. Refused requests are not added (CONTRACT.md).
// When Redis cannot answer, the limiter falls back to this process's own memory count (a limit
// per process is better than none, and better than refusing every sign-in).
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { MemoryRateLimiter, type RateLimiter } from './rate-limit.ts';
import type { Logger } from './logger.ts';

// KEYS[1]: the window's sorted set. ARGV: now ms, window ms, limit, unique member.
const TAKE_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;
const KEY_PREFIX = 'gw:rl:';
const WARN_EVERY_MS = 30_000;

export class RedisRateLimiter implements RateLimiter {
  readonly #redis: Redis;
  readonly #fallback = new MemoryRateLimiter();
  readonly #log: Logger | null;
  readonly #sha: string;
  #lastWarn = 0;

  constructor(url: string, log: Logger | null = null) {
    // Loaded here, not at module load: without REDIS_URL the client library is never needed.
    const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.#redis = new RedisClient(url, {
      // Fail fast instead of queueing while disconnected: the fallback answers meanwhile.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: false,
    });
    this.#redis.on('error', (err: unknown) => this.#warn(err));
    this.#log = log;
    this.#sha = crypto.createHash('sha1').update(TAKE_SCRIPT).digest('hex');
  }

  async take(key: string, limit: number, windowMs: number, nowMs: number): Promise<boolean> {
    const args = [KEY_PREFIX + key, String(nowMs), String(windowMs), String(limit), `${nowMs}:${crypto.randomBytes(6).toString('hex')}`];
    try {
      let res: unknown;
      try {
        res = await this.#redis.evalsha(this.#sha, 1, ...args);
      } catch (err) {
        if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
        res = await this.#redis.eval(TAKE_SCRIPT, 1, ...args);
      }
      return res === 1;
    } catch (err) {
      this.#warn(err);
      return this.#fallback.take(key, limit, windowMs, nowMs);
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
    this.#log?.warn({ err }, 'redis rate limiter unavailable; counting in this process meanwhile');
  }
}

/** The limiter the configuration asks for: Redis when REDIS_URL is set, else this process's memory. */
export function createRateLimiter(redisUrl: string | null, log: Logger | null = null): RateLimiter & { close?: () => Promise<void> } {
  return redisUrl ? new RedisRateLimiter(redisUrl, log) : new MemoryRateLimiter();
}
