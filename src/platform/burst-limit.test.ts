// The token bucket of "1 a second, bursts of 5": in memory (with a property test of the bucket it
// models) and in the local Redis (skipped with one printed line when none answers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import fc from 'fast-check';
import { gcra, MemoryBurstLimiter, RedisBurstLimiter, type BurstLimiter } from './burst-limit.ts';
import { redisAnswers, TEST_REDIS_URL } from '../../test/harness/redis.ts';

/** What every limiter must do with one key, at 1 a second and bursts of 5 (times in ms). */
async function bucketRules(l: BurstLimiter, key: string): Promise<void> {
  const at = async (ms: number, n = 1) => { const r: boolean[] = []; for (let i = 0; i < n; i++) r.push(await l.take(key, 1, 5, ms)); return r; };
  expect(await at(10_000, 7)).toEqual([true, true, true, true, true, false, false]);
  expect(await at(10_999)).toEqual([false]);
  expect(await at(11_000, 2)).toEqual([true, false]);
  expect(await at(12_500, 2)).toEqual([true, false]);
  // Idle for 5 s or more: the whole burst is back.
  expect(await at(20_000, 6)).toEqual([true, true, true, true, true, false]);
}

describe('burst limiter in memory', () => {
  it('admits a burst of 5, then one a second; refusals do not count', async () => {
    await bucketRules(new MemoryBurstLimiter(), 'k');
  });

  it('keeps keys apart', async () => {
    const l = new MemoryBurstLimiter();
    for (let i = 0; i < 5; i++) expect(await l.take('a', 1, 5, 0)).toBe(true);
    expect(await l.take('a', 1, 5, 0)).toBe(false);
    expect(await l.take('b', 1, 5, 0)).toBe(true);
  });

  it('admits exactly what a bucket of 5 tokens refilled at 1 a second admits', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 3000 }), { maxLength: 60 }), (gaps) => {
      // The bucket as a plain model: fractional tokens, 5 at most, one taken per admitted request.
      let tokens = 5;
      let last = 0;
      let tat: number | undefined;
      let now = 0;
      for (const gap of gaps) {
        now += gap;
        tokens = Math.min(5, tokens + (now - last) / 1000);
        last = now;
        const modelAdmits = tokens >= 1 - 1e-9;
        if (modelAdmits) tokens -= 1;
        const next = gcra(tat, now, 1000, 5);
        expect(next !== null).toBe(modelAdmits);
        if (next !== null) tat = next;
      }
    }));
  });
});

const URL = TEST_REDIS_URL;
describe('burst limiter in Redis', () => {
  let a: RedisBurstLimiter;
  let b: RedisBurstLimiter;
  let up = false;
  beforeAll(async () => {
    a = new RedisBurstLimiter(URL);
    b = new RedisBurstLimiter(URL);
    up = await redisAnswers(URL);
    if (!up) console.log(`Redis burst limiter tests skipped: no Redis at ${URL}`);
    // a Redis that answers must be reached by the limiter: its tests never skip for its own fault
    else for (const l of [a, b]) expect(await l.ready()).toBe(true);
  });
  afterAll(async () => { await a.close(); await b.close(); });
  const key = () => `test:${crypto.randomBytes(6).toString('hex')}`;

  it('follows the same rules', async (ctx) => {
    if (!up) ctx.skip();
    await bucketRules(a, key());
  });

  it('admits exactly 5 of many concurrent requests from two processes', async (ctx) => {
    if (!up) ctx.skip();
    const k = key();
    const all = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).take(k, 1, 5, 50_000)));
    expect(all.filter(Boolean)).toHaveLength(5);
  });

  it('falls back to counting in memory when Redis is unreachable', async () => {
    const dead = new RedisBurstLimiter('redis://127.0.0.1:1');
    await bucketRules(dead, 'k');
    await dead.close();
  });
});
