// One Lua script run atomically in Redis, for the limits shared between processes (rate-limit and
// burst-limit): its own client, loaded only when used (without REDIS_URL the client library is
// never needed), failing fast while disconnected so the caller can fall back to counting in its
// own memory, with a warning at most every 30 seconds.
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Logger } from './logger.ts';

const WARN_EVERY_MS = 30_000;

export class RedisScript {
  readonly #redis: Redis;
  readonly #script: string;
  readonly #sha: string;
  readonly #log: Logger | null;
  readonly #warning: string;
  #lastWarn = 0;

  /** `warning`: logged when Redis cannot answer (the caller counts in memory meanwhile). */
  constructor(url: string, script: string, log: Logger | null, warning: string) {
    const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.#redis = new RedisClient(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: false });
    this.#redis.on('error', (err: unknown) => this.warn(err));
    this.#script = script;
    this.#sha = crypto.createHash('sha1').update(script).digest('hex');
    this.#log = log;
    this.#warning = warning;
  }

  /** Runs the script on one key (by its SHA-1, sending it whole when Redis does not have it yet). */
  async run(key: string, args: string[]): Promise<unknown> {
    try {
      return await this.#redis.evalsha(this.#sha, 1, key, ...args);
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
      return this.#redis.eval(this.#script, 1, key, ...args);
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

  close(): void {
    this.#redis.disconnect();
  }

  warn(err: unknown): void {
    const now = Date.now();
    if (now - this.#lastWarn < WARN_EVERY_MS) return;
    this.#lastWarn = now;
    this.#log?.warn({ err }, this.#warning);
  }
}
