import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../platform/clock.ts';
import { ConnectionPool, connectionKey } from './connection-pool.ts';
import { attemptDelivery, type AttemptRequest } from './http-attempt.ts';
import { verifyWebhook } from './verify.ts';
import type { Resolver } from './url-policy.ts';

const SECRET = 'e'.repeat(64);
const clock = new ManualClock('2026-01-05T12:00:00Z');
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => { for (const f of cleanup.splice(0)) await f(); });

interface Hit { localAddress: string; socket: Socket; attempt: string; signature: string; body: string }

// A receiver on every loopback address (127.0.0.0/8), noting which address and connection each request used.
async function receiver(answer: (hit: Hit, n: number, res: http.ServerResponse) => void = (_h, _n, res) => res.writeHead(200).end('ok')) {
  const hits: Hit[] = [];
  const perSocket = new Map<Socket, number>();
  let connections = 0;
  const open = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      const hit = {
        localAddress: req.socket.localAddress ?? '', socket: req.socket, attempt: String(req.headers['x-webhook-attempt']),
        signature: String(req.headers['x-webhook-signature']), body: Buffer.concat(chunks).toString('utf8'),
      };
      hits.push(hit);
      answer(hit, n, res);
    });
  });
  server.on('connection', (socket: Socket) => { connections += 1; open.add(socket); socket.on('close', () => open.delete(socket)); });
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
  cleanup.push(() => { server.closeAllConnections(); return new Promise<void>((r) => server.close(() => r())); });
  return { port: (server.address() as AddressInfo).port, hits, connections: () => connections, open: () => [...open] };
}

function pool(): ConnectionPool {
  const p = new ConnectionPool({ maxSocketsPerKey: 4 });
  cleanup.push(() => p.close());
  return p;
}

const request = (url: string, extra: Partial<AttemptRequest>): AttemptRequest => ({
  url, body: '{"id":"evt_1"}', secret: SECRET, deliveryId: 'dlv_1', eventType: 'ping', attempt: 1, timeoutMs: 2000,
  allowPrivate: true, clock, ...extra,
});

const at = (address: string): Resolver => async () => [{ address, family: 4 }];

describe('ConnectionPool', () => {
  it('reuses a kept-alive connection: the receiver sees fewer connections than requests, each signed afresh', async () => {
    const r = await receiver();
    const p = pool();
    for (let i = 1; i <= 5; i++) {
      const result = await attemptDelivery(request(`http://hooks.invalid:${r.port}/in`, { resolve: at('127.0.0.1'), pool: p, attempt: i }));
      expect(result.ok).toBe(true);
    }
    expect(r.hits).toHaveLength(5);
    expect(r.connections()).toBe(1);
    expect(r.hits.map((h) => h.attempt)).toEqual(['1', '2', '3', '4', '5']);
    for (const h of r.hits) expect(verifyWebhook(h.body, h.signature, SECRET, { now: clock.now() }).ok).toBe(true);
  });

  it('never reuses the old address\'s connection once the name resolves elsewhere', async () => {
    const r = await receiver();
    const p = pool();
    const url = `http://rebind.invalid:${r.port}/in`;
    expect((await attemptDelivery(request(url, { resolve: at('127.0.0.1'), pool: p }))).ok).toBe(true);
    expect((await attemptDelivery(request(url, { resolve: at('127.0.0.2'), pool: p }))).ok).toBe(true);
    expect((await attemptDelivery(request(url, { resolve: at('127.0.0.2'), pool: p }))).ok).toBe(true);
    expect(r.hits.map((h) => h.localAddress)).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.2']);
    // The new address got its own connection (then reused it), never the one opened to the old address.
    expect(r.connections()).toBe(2);
    expect(r.hits[1].socket).not.toBe(r.hits[0].socket);
    expect(r.hits[2].socket).toBe(r.hits[1].socket);
  });

  it('keys by scheme, host, port and the checked addresses in any order', () => {
    const a = { address: '192.0.2.1', family: 4 as const };
    const b = { address: '192.0.2.2', family: 4 as const };
    expect(connectionKey('https:', 'Hooks.Example', 443, [a, b])).toBe(connectionKey('https:', 'hooks.example', 443, [b, a]));
    expect(connectionKey('https:', 'hooks.example', 443, [a])).not.toBe(connectionKey('https:', 'hooks.example', 443, [a, b]));
    expect(connectionKey('https:', 'hooks.example', 443, [a])).not.toBe(connectionKey('http:', 'hooks.example', 443, [a]));
    expect(connectionKey('https:', 'hooks.example', 443, [a])).not.toBe(connectionKey('https:', 'hooks.example', 8443, [a]));
    expect(connectionKey('https:', 'a.example', 443, [a])).not.toBe(connectionKey('https:', 'b.example', 443, [a]));
  });

  it('sends once more on a fresh connection when a kept-alive one was closed under it', async () => {
    // The second request on any connection is dropped without an answer, as a receiver closing an idle connection does.
    const r = await receiver((hit, n, res) => { if (n > 1) hit.socket.destroy(); else res.writeHead(200).end('ok'); });
    const p = pool();
    const url = `http://stale.invalid:${r.port}/in`;
    expect((await attemptDelivery(request(url, { resolve: at('127.0.0.1'), pool: p }))).ok).toBe(true);
    const second = await attemptDelivery(request(url, { resolve: at('127.0.0.1'), pool: p, attempt: 2 }));
    expect(second).toMatchObject({ ok: true, statusCode: 200 });
    expect(r.connections()).toBe(2);
  });

  // An attempt that finds no idle connection and room for one opens it before building its request
  // (http-attempt.ts). Two attempts started together both do; the host's one connection goes to
  // the first, and the agent queues the second's request with the connection it brought.
  const oneConnection = () => {
    const p = new ConnectionPool({ maxSocketsPerKey: 1, maxFreePerKey: 1 });
    cleanup.push(() => p.close());
    return p;
  };
  const queued = (p: ConnectionPool, host: string, port: number) =>
    Object.values(p.agentFor('http:', host, port, [{ address: '127.0.0.1', family: 4 }])!.requests).some((list) => (list?.length ?? 0) > 0);
  const until = async (what: () => boolean, timeout = 5000) => { await vi.waitFor(() => { if (!what()) throw new Error('not yet'); }, { timeout, interval: 5 }); };

  /**
   * Two attempts to one host of one connection, started together or the second once the first
   * arrived; the receiver holds each answer until `answerBoth` answers them in order.
   */
  const twoHeld = async (host: string, second: 'together' | 'once the first arrived') => {
    const held: http.ServerResponse[] = [];
    const r = await receiver((_hit, _n, res) => { held.push(res); });
    const p = oneConnection();
    const attempt = (n: number) => attemptDelivery(request(`http://${host}:${r.port}/in`, { resolve: at('127.0.0.1'), pool: p, attempt: n }));
    const attempts = [attempt(1)];
    if (second !== 'together') await until(() => held.length === 1);
    attempts.push(attempt(2));
    await until(() => held.length === 1 && queued(p, host, r.port));
    const answerBoth = async () => {
      held[0].writeHead(200).end('ok');
      await until(() => held.length === 2);
      held[1].writeHead(200).end('ok');
      return Promise.all(attempts);
    };
    return { r, answerBoth };
  };

  it('a request queued behind a busy connection takes it when it is freed, and closes the one it opened', async () => {
    const { r, answerBoth } = await twoHeld('queued.invalid', 'together');
    for (const result of await answerBoth()) expect(result).toMatchObject({ ok: true, statusCode: 200 });
    // Both opened a connection; the second's request went over the first's kept-alive one, and the
    // one it had opened is closed at once, not left open (the kept-alive one stays for the pool's 4 s).
    expect(r.connections()).toBe(2);
    expect(r.hits[1].socket).toBe(r.hits[0].socket);
    await until(() => r.open().length === 1 && r.open()[0] === r.hits[0].socket, 1000);
  });

  it('opens no connection of its own when the host\'s connections are all busy: it waits for one', async () => {
    const { r, answerBoth } = await twoHeld('busy.invalid', 'once the first arrived');
    for (const result of await answerBoth()) expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(r.connections()).toBe(1);
  });

  it('a request queued behind a connection that closes gets a new connection, never the closed one', async () => {
    const held: Hit[] = [];
    const r = await receiver((hit, _n, res) => { if (held.length === 0) held.push(hit); else res.writeHead(200).end('ok'); });
    const p = oneConnection();
    const url = `http://closing.invalid:${r.port}/in`;
    const first = attemptDelivery(request(url, { resolve: at('127.0.0.1'), pool: p }));
    const second = attemptDelivery(request(url, { resolve: at('127.0.0.1'), pool: p, attempt: 2 }));
    await until(() => held.length === 1 && queued(p, 'closing.invalid', r.port));
    // The receiver drops the first connection without answering. The agent replaces it for the
    // queued request with the options the closed one was opened with, which name its connection.
    held[0].socket.destroy();
    expect(await first).toMatchObject({ ok: false, error: 'connection closed before an answer' });
    expect(await second).toMatchObject({ ok: true, statusCode: 200 });
    expect(r.hits.map((h) => h.attempt)).toEqual(['1', '2']);
    expect(r.hits[1].socket).not.toBe(r.hits[0].socket);
  });

  it('bounds the keys it keeps; a closed pool opens fresh connections', async () => {
    const p = new ConnectionPool({ maxKeys: 2 });
    const addr = (ip: string) => [{ address: ip, family: 4 as const }];
    p.agentFor('http:', 'a.invalid', 80, addr('192.0.2.1'));
    p.agentFor('http:', 'b.invalid', 80, addr('192.0.2.1'));
    p.agentFor('http:', 'c.invalid', 80, addr('192.0.2.1'));
    expect(p.keys).toBe(2);
    p.close();
    expect(p.keys).toBe(0);
    expect(p.agentFor('http:', 'a.invalid', 80, addr('192.0.2.1'))).toBeUndefined();
  });
});
