// With REDIS_URL, the sign-in limit is shared by every process: two apps count one IP together.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp } from '../harness/accounts.ts';
import { RedisRateLimiter } from '../../src/platform/redis-rate-limit.ts';
import { redisAnswers, TEST_REDIS_URL } from '../harness/redis.ts';

const REDIS_URL = TEST_REDIS_URL;
let up = false;

describeEachDb('shared rate limits through Redis', (h) => {
  let a: TestApp | null = null;
  let b: TestApp | null = null;
  beforeAll(async () => {
    up = await redisAnswers(REDIS_URL);
    if (!up) {
      console.log(`Redis rate-limit tests skipped: no Redis at ${REDIS_URL}`);
      return;
    }
    a = await startTestApp(h.db(), { env: { REDIS_URL } });
    b = await startTestApp(h.db(), { env: { REDIS_URL } });
  });
  afterAll(async () => { await a?.close(); await b?.close(); });

  it('uses the Redis limiter when REDIS_URL is set, and admits 5 sign-ins a second per IP across two processes', async (ctx) => {
    if (!up || !a || !b) return ctx.skip();
    for (const t of [a, b]) {
      expect(t.services.accounts.limiter).toBeInstanceOf(RedisRateLimiter);
      // until connected, each process counts alone (the fallback)
      expect(await (t.services.accounts.limiter as RedisRateLimiter).ready()).toBe(true);
    }
    const ip = randomIp();
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) {
      const app = i % 2 ? a.app : b.app;
      codes.push((await app.inject({ method: 'POST', url: '/merchant/login', remoteAddress: ip, payload: {} })).statusCode);
    }
    expect(codes).toEqual([400, 400, 400, 400, 400, 429, 429]);
  });
});
