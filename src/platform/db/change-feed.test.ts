import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeFeed } from './change-feed.ts';
import { createLogger } from '../logger.ts';
import type { Database } from './database.ts';

/** A port nothing listens on: taken and closed at once, so a connection to it is refused. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const feeds: ChangeFeed[] = [];
afterEach(async () => { for (const f of feeds.splice(0)) await f.close(); });

describe('ChangeFeed', () => {
  // Every cached read calls start() while the feed is not listening: with the database refusing
  // connections, each request would open one of its own. One attempt, then one a second.
  it('waits for its reconnection delay after a failed attempt, however often start() is called meanwhile', async () => {
    const lines: string[] = [];
    const log = createLogger('warn', { write: (line: string) => { lines.push(line); } });
    // a database whose server cannot be reached (only what the feed reads of it)
    const db = { url: `postgres://postgres@127.0.0.1:${await closedPort()}/nowhere`, pglite: null, onReported: () => () => {} } as unknown as Database;
    const feed = new ChangeFeed(db, log, ['somewhere']);
    feeds.push(feed);
    feed.start();
    for (let i = 0; i < 50 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(lines).toHaveLength(1);
    for (let i = 0; i < 20; i++) {
      feed.start();
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(feed.active).toBe(false);
    expect(lines.filter((l) => l.includes('change feed: lost the database notices'))).toHaveLength(1);
  });
});
