// A limit on failures only (wrong passwords, wrong admin tokens): once `max` failures of a key stand
// in the last `windowMs`, every attempt under that key answers 429 until the oldest leaves the
// window. Successes are never counted, so the rightful user is never slowed down.
import { tooManyRequests } from './errors.ts';
import type { RateLimiter } from './rate-limit.ts';

export interface FailureLimit {
  max: number;
  windowMs: number;
}

/** Throws 429 when `key` has used up its failures in the window ending at `nowMs`. */
export async function refuseOverFailures(limiter: RateLimiter, key: string, limit: FailureLimit, nowMs: number): Promise<void> {
  if (await limiter.count(key, limit.windowMs, nowMs) >= limit.max) throw tooManyRequests(limit.windowMs);
}

/** Counts one failure of `key` (never refused itself: the limit is checked before the attempt). */
export async function countFailure(limiter: RateLimiter, key: string, limit: FailureLimit, nowMs: number): Promise<void> {
  await limiter.take(key, Number.MAX_SAFE_INTEGER, limit.windowMs, nowMs);
}
