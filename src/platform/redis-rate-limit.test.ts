// The Redis limiter against the local Redis (skipped with one printed line when none answers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import { RedisRateLimiter } from './redis-rate-limit.ts';
import { redisAnswers, TEST_REDIS_URL } from '../../test/harness/redis.ts';

const URL = TEST_REDIS_URL;
let a: RedisRateLimiter;
let b: RedisRateLimiter;
let up = false;

beforeAll(async () => {
  a = new RedisRateLimiter(URL);
  b = new RedisRateLimiter(URL);
  up = await redisAnswers(URL);
  if (!up) console.log(`Redis rate limiter tests skipped: no Redis at ${URL}`);
  // a Redis that answers must be reached by the limiter: its tests never skip for its own fault
  else for (const l of [a, b]) expect(await l.ready()).toBe(true);
});
afterAll(async () => { await a.close(); await b.close(); });

const key = () => `test:${crypto.randomBytes(6).toString('hex')}`;

describe('Redis sliding-window limiter', () => {
  it('admits N in any window, across two processes, and does not count refusals', async (ctx) => {
    if (!up) ctx.skip();
    const k = key();
    const results: boolean[] = [];
    for (let i = 0; i < 7; i++) results.push(await (i % 2 ? a : b).take(k, 5, 1000, 1000 + i));
    expect(results).toEqual([true, true, true, true, true, false, false]);
    expect(await a.take(k, 5, 1000, 1999)).toBe(false);
    expect(await b.take(k, 5, 1000, 2000)).toBe(true);
    expect(await a.take(k, 5, 1000, 2000)).toBe(false);
  });

  it('admits exactly N of many concurrent requests from two clients', async (ctx) => {
    if (!up) ctx.skip();
    const k = key();
    const all = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).take(k, 5, 1000, 5000)));
    expect(all.filter(Boolean)).toHaveLength(5);
  });

  it('counts the admitted requests still in the window, without adding one', async (ctx) => {
    if (!up) ctx.skip();
    const k = key();
    expect(await a.count(k, 1000, 1000)).toBe(0);
    await a.take(k, 5, 1000, 1000);
    await b.take(k, 5, 1000, 1500);
    expect(await b.count(k, 1000, 1600)).toBe(2);
    expect(await a.count(k, 1000, 1600)).toBe(2);
    // The first take leaves the window after 1000 ms.
    expect(await a.count(k, 1000, 2001)).toBe(1);
  });

  it('falls back to counting in memory when Redis is unreachable', async () => {
    const dead = new RedisRateLimiter('redis://127.0.0.1:1');
    const k = key();
    const results: boolean[] = [];
    for (let i = 0; i < 3; i++) results.push(await dead.take(k, 2, 1000, 1000));
    expect(results).toEqual([true, true, false]);
    await dead.close();
  });
});
