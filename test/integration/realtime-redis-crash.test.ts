// kill -9 of the dispatching process right after its commit, with the socket fan-out on Redis: the
// batch has left the outbox queue for good, so another process's sockets hear of its events only if
// they reached Redis before that commit (README "The outbox").
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { createPgDatabase, pgServerUrl } from '../harness/databases.ts';
import { NODE } from '../harness/node.ts';
import { redisAnswers, TEST_REDIS_URL } from '../harness/redis.ts';
import { openPostgres, queryRows } from '../../src/platform/db/index.ts';
import { randomHex } from '../../src/platform/ids.ts';
import { REDIS_CHANNEL, redisChannelSuffix } from '../../src/realtime/fanout.ts';

const fixture = path.resolve(import.meta.dirname, '../fixtures/realtime-dispatch-killed.ts');
// A database number of this test's own: the channel carries it, so other tests' events stay apart.
const redisUrl = (() => { const u = new URL(TEST_REDIS_URL); u.pathname = '/12'; return u.toString(); })();
const redisUp = await redisAnswers(TEST_REDIS_URL);

/** Runs the fixture until it kills itself after its commit; fails if it ended any other way. */
function killedAfterCommit(pgUrl: string, mark: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [fixture, pgUrl, redisUrl, mark], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' } });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`the fixture was not killed (${code}): ${out}`))));
  });
}

describe.skipIf(!pgServerUrl() || !redisUp)('socket fan-out over Redis, dispatcher killed after its commit [postgres, redis]', () => {
  it('another process still hears the committed batch', async () => {
    const created = await createPgDatabase();
    // Another process of the gateway, as far as Redis is concerned: it reads the channel every process reads.
    const other = new Redis(redisUrl);
    const heard: string[] = [];
    other.on('message', (_channel: string, message: string) => heard.push(message));
    await other.subscribe(REDIS_CHANNEL + redisChannelSuffix(redisUrl));
    try {
      const mark = `crash-${randomHex(6)}`;
      await killedAfterCommit(created.url, mark);
      // The commit happened: the event has left the queue, nobody will hand it over again.
      const db = await openPostgres(created.url);
      try {
        const [row] = await queryRows<{ queued: boolean }>(db.orm, sql`
          select exists (select 1 from outbox_pending p join events e on e.seq = p.seq where e.data->>'mark' = ${mark}) as queued`);
        expect(row.queued).toBe(false);
      } finally {
        await db.close();
      }
      await expect.poll(() => heard.filter((m) => m.includes(mark)).length, { timeout: 2000 }).toBe(1);
      const [event] = (JSON.parse(heard.find((m) => m.includes(mark))!) as Array<{ type: string; data: { mark: string } }>);
      expect(event).toMatchObject({ type: 'support:message', data: { mark } });
    } finally {
      other.disconnect();
      await created.drop();
    }
  }, 60_000);
});
