// The Redis fan-out against the local Redis (skipped with one printed line when none answers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { RedisFanout } from './fanout.ts';
import type { StoredEvent } from '../events/index.ts';
import { redisAnswers, TEST_REDIS_URL } from '../../test/harness/redis.ts';

const log = pino({ level: 'silent' });
const withDb = (n: number) => { const u = new URL(TEST_REDIS_URL); u.pathname = `/${n}`; return u.toString(); };
let up = false;
const fanouts: RedisFanout[] = [];
beforeAll(async () => {
  up = await redisAnswers(TEST_REDIS_URL);
  if (!up) console.log(`Redis fan-out tests skipped: no Redis at ${TEST_REDIS_URL}`);
});
afterAll(async () => { await Promise.all(fanouts.map((f) => f.stop())); });

async function started(url: string): Promise<StoredEvent[][]> {
  const f = new RedisFanout(url, log);
  fanouts.push(f);
  const heard: StoredEvent[][] = [];
  await f.start((batch) => heard.push(batch));
  return heard;
}

describe('Redis fan-out', () => {
  it('keeps two deployments on their own Redis database numbers apart', async (ctx) => {
    if (!up) ctx.skip();
    // Pub/sub channels are server-wide in Redis, whatever the database number: a deployment on
    // database 13 must not hear (or show its operators) the events of one on database 14.
    const same = await started(withDb(13));
    const other = await started(withDb(14));
    const publisher = new RedisFanout(withDb(13), log);
    fanouts.push(publisher);
    await publisher.start(() => {});
    const event: StoredEvent = { seq: 1, id: 'evt_fanout_test', type: 'support:message', merchantId: 'mer_x', paymentId: null,
      livemode: true, data: { body: 'hi' }, webhookUrl: null, createdAt: new Date() };
    await publisher.beforeCommit([event]);
    await expect.poll(() => same.length, { timeout: 3000 }).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(other.length).toBe(0);
  });

  it('hands a batch published again (its commit failed) to the sockets once', async (ctx) => {
    if (!up) ctx.skip();
    // Published before the dispatch commit: a commit that fails hands the batch over again, and it
    // is published a second time, followed here by the next batch.
    const heard = await started(withDb(11));
    const publisher = new RedisFanout(withDb(11), log);
    fanouts.push(publisher);
    await publisher.start(() => {});
    const at = new Date();
    const event = (seq: number): StoredEvent => ({ seq, id: `evt_repeat_${seq}`, type: 'support:message', merchantId: 'mer_x', paymentId: null,
      livemode: true, data: { seq }, webhookUrl: null, createdAt: at });
    await publisher.beforeCommit([event(101), event(102)]);
    await publisher.beforeCommit([event(101), event(102), event(103)]);
    await expect.poll(() => heard.flat().map((e) => e.seq), { timeout: 3000 }).toEqual([101, 102, 103]);
    await new Promise((r) => setTimeout(r, 200));
    expect(heard.flat().map((e) => e.id)).toEqual(['evt_repeat_101', 'evt_repeat_102', 'evt_repeat_103']);
  });
});
