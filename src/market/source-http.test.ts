import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpGetJson, SourceError } from './source-http.ts';

const CHUNK = Buffer.alloc(64 * 1024, ' ');

/** Local server: each path answers chunked (no Content-Length), as a price API behind a proxy may. */
describe('httpGetJson: an answer with no Content-Length', () => {
  let server: http.Server;
  let base = '';
  /** Set when the endless answer's connection closes: the reader stopped reading. */
  let endlessClosed: Promise<number>;
  let markEndlessClosed: (sent: number) => void;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }); // no content-length: chunked
      if (req.url === '/endless') {
        // '[' then spaces forever: never valid JSON, never ends; writes as fast as the reader reads
        let sent = 0;
        res.on('close', () => markEndlessClosed(sent));
        res.write('[');
        const more = () => {
          while (!res.destroyed && res.write(CHUNK)) sent += CHUNK.length;
          if (!res.destroyed) res.once('drain', () => { sent += CHUNK.length; more(); });
        };
        more();
      } else if (req.url === '/large') {
        // 1.5 MB of valid JSON, in pieces, then the end
        res.write('[');
        for (let i = 0; i < 24; i++) res.write(CHUNK);
        res.end('1]');
      } else if (req.url === '/multibyte') {
        // 600,000 characters but 1.2 MB: the cap is in bytes
        res.end(JSON.stringify('é'.repeat(600_000)));
      } else {
        // just under the cap: read and parsed
        res.write('{"price":"1.5"');
        for (let i = 0; i < 15; i++) res.write(CHUNK);
        res.end('}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('stops reading an endless answer once past 1 MB, and says it is too large', async () => {
    endlessClosed = new Promise((resolve) => { markEndlessClosed = resolve; });
    const limit = new AbortController();
    // a safety net only: the reader must give up on its own, long before this
    const timer = setTimeout(() => limit.abort(new DOMException('limit', 'TimeoutError')), 10_000);
    try {
      const answer = httpGetJson(limit.signal)(`${base}/endless`);
      await expect(answer).rejects.toThrow(SourceError);
      await expect(answer).rejects.toThrow(/^answer too large$/);
      expect(limit.signal.aborted).toBe(false);
      // the connection is closed rather than drained: the server stopped short of a few MB
      expect(await endlessClosed).toBeLessThan(4_000_000);
    } finally {
      clearTimeout(timer);
    }
  });

  it('refuses a finite answer past 1 MB, counted in bytes', async () => {
    const get = httpGetJson(new AbortController().signal);
    await expect(get(`${base}/large`)).rejects.toThrow(/^answer too large$/);
    await expect(get(`${base}/multibyte`)).rejects.toThrow(/^answer too large$/);
  });

  it('reads an answer just under 1 MB', async () => {
    expect(await httpGetJson(new AbortController().signal)(`${base}/under`)).toEqual({ price: '1.5' });
  });
});
