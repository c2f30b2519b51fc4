import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../platform/clock.ts';
import { attemptDelivery, NO_WEBHOOK_URL, type AttemptRequest, USER_AGENT } from './http-attempt.ts';
import { ConnectionPool } from './connection-pool.ts';
import { verifyWebhook } from './verify.ts';
import type { Resolver } from './url-policy.ts';

const SECRET = 'f'.repeat(64);
const BODY = '{"created_at":"2026-01-05T12:00:00.000Z","data":{"message":"héllo"},"id":"0123456789abcdef01234567","livemode":false,"type":"ping"}';
const clock = new ManualClock('2026-01-05T12:00:00Z');

interface Seen { headers: http.IncomingHttpHeaders; body: string; url: string; servername?: string | false }
type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const servers: (http.Server | https.Server)[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function listen(server: http.Server | https.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

// A local receiver that records what it was sent, then lets `handler` answer.
async function receiver(handler: Handler, tls?: { key: string; cert: string }) {
  const seen: Seen[] = [];
  let connections = 0;
  const onRequest: Handler = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const servername = (req.socket as { servername?: string | false }).servername;
      seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), url: req.url ?? '', servername });
      handler(req, res);
    });
  };
  const server = tls ? https.createServer(tls, onRequest) : http.createServer(onRequest);
  server.on('connection', () => { connections += 1; });
  const port = await listen(server);
  return { port, seen, connections: () => connections };
}

const request = (url: string, extra: Partial<AttemptRequest> = {}): AttemptRequest => ({
  url, body: BODY, secret: SECRET, deliveryId: 'dlv_1', eventType: 'ping', attempt: 3, timeoutMs: 2000,
  allowPrivate: true, clock, ...extra,
});

describe('attemptDelivery', () => {
  it('posts the body with exactly the spec headers, signed afresh, and acknowledges a 2xx', async () => {
    const r = await receiver((_q, res) => res.writeHead(200).end('thanks'));
    const result = await attemptDelivery(request(`http://127.0.0.1:${r.port}/hooks?x=1`));
    expect(result).toMatchObject({ ok: true, statusCode: 200, response: 'thanks', signedAt: 1767614400 });
    expect(result.error).toBeUndefined();
    expect(result.millis).toBeGreaterThanOrEqual(0);
    const [got] = r.seen;
    expect(got.url).toBe('/hooks?x=1');
    expect(got.body).toBe(BODY);
    expect(got.headers).toMatchObject({
      host: `127.0.0.1:${r.port}`,
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-webhook-id': 'dlv_1',
      'x-webhook-event': 'ping',
      'x-webhook-attempt': '3',
      'content-length': String(Buffer.byteLength(BODY)),
    });
    expect(got.headers['x-webhook-signature']).toMatch(/^t=1767614400,v1=[0-9a-f]{64}$/);
    const verified = verifyWebhook(got.body, got.headers['x-webhook-signature'] as string, SECRET, { now: clock.now() });
    expect(verified).toEqual({ ok: true, event: JSON.parse(BODY) });
  });

  it('signs each attempt with the time it is made', async () => {
    const r = await receiver((_q, res) => res.writeHead(204).end());
    const first = await attemptDelivery(request(`http://127.0.0.1:${r.port}/`));
    const later = new ManualClock('2026-01-05T12:01:00Z');
    const second = await attemptDelivery(request(`http://127.0.0.1:${r.port}/`, { clock: later }));
    expect([first.ok, first.statusCode, second.signedAt! - first.signedAt!]).toEqual([true, 204, 60]);
    expect(r.seen[0].headers['x-webhook-signature']).not.toBe(r.seen[1].headers['x-webhook-signature']);
  });

  it('a 500 is a failure with its status, error and answer text', async () => {
    const r = await receiver((_q, res) => res.writeHead(500).end('boom'));
    const result = await attemptDelivery(request(`http://127.0.0.1:${r.port}/`));
    expect(result).toMatchObject({ ok: false, statusCode: 500, error: 'endpoint answered 500', response: 'boom' });
  });

  it('does not follow a redirect: the 3xx is recorded and the target never hit', async () => {
    const target = await receiver((_q, res) => res.writeHead(200).end());
    const r = await receiver((_q, res) => res.writeHead(302, { Location: `http://127.0.0.1:${target.port}/` }).end('moved'));
    const result = await attemptDelivery(request(`http://127.0.0.1:${r.port}/`));
    expect(result).toMatchObject({ ok: false, statusCode: 302, error: 'endpoint answered 302', response: 'moved' });
    expect(target.connections()).toBe(0);
  });

  it('times out a receiver that never answers', async () => {
    const r = await receiver(() => { /* hang */ });
    const result = await attemptDelivery(request(`http://127.0.0.1:${r.port}/`, { timeoutMs: 300 }));
    expect(result).toMatchObject({ ok: false, error: 'timeout after 300 ms', response: '' });
    expect(result.statusCode).toBeUndefined();
    expect(result.millis).toBeGreaterThanOrEqual(290);
    expect(result.millis).toBeLessThan(1500);
  });

  it('a 2xx whose body never ends still acknowledges, with what arrived by the deadline', async () => {
    const r = await receiver((_q, res) => { res.writeHead(200); res.write('partial'); });
    const result = await attemptDelivery(request(`http://127.0.0.1:${r.port}/`, { timeoutMs: 300 }));
    expect(result).toMatchObject({ ok: true, statusCode: 200, response: 'partial' });
  });

  it('reads only the first 500 characters of a huge answer and stops reading', async () => {
    let closed = false;
    let written = 0;
    const r = await receiver((_q, res) => {
      res.writeHead(500);
      const chunk = Buffer.alloc(64 * 1024, 'é'.repeat(1));
      const pump = () => { while (!closed && written < 1e9 && res.write(chunk)) written += chunk.length; };
      res.on('drain', pump);
      res.on('close', () => { closed = true; });
      pump();
    });
    const result = await attemptDelivery(request(`http://127.0.0.1:${r.port}/`, { timeoutMs: 5000 }));
    expect(result.ok).toBe(false);
    expect(result.statusCode).toBe(500);
    expect(Array.from(result.response)).toHaveLength(500);
    expect(result.millis).toBeLessThan(2000);
    await new Promise((res) => setTimeout(res, 50));
    expect(closed).toBe(true);
    expect(written).toBeLessThan(50 * 1024 * 1024);
  });

  it('keeps multi-byte characters whole when cutting at 500', async () => {
    const text = '€'.repeat(800);
    const r = await receiver((_q, res) => res.writeHead(400).end(text));
    const result = await attemptDelivery(request(`http://127.0.0.1:${r.port}/`));
    expect(result.response).toBe('€'.repeat(500));
  });

  it('counts characters, not UTF-16 units: 500 characters outside the BMP are kept whole', async () => {
    const text = '😀'.repeat(800);
    const r = await receiver((_q, res) => res.writeHead(400).end(text));
    const result = await attemptDelivery(request(`http://127.0.0.1:${r.port}/`));
    expect(result.response).toBe('😀'.repeat(500));
  });

  it('reports a refused connection', async () => {
    const probe = http.createServer();
    const port = await listen(probe);
    servers.pop();
    await new Promise((r) => probe.close(r));
    const result = await attemptDelivery(request(`http://127.0.0.1:${port}/`));
    expect(result).toMatchObject({ ok: false, error: 'connection refused', response: '' });
  });

  it('reports a connection closed without an answer', async () => {
    const r = await receiver((req) => req.socket.destroy());
    const result = await attemptDelivery(request(`http://127.0.0.1:${r.port}/`));
    expect(result).toMatchObject({ ok: false, error: 'connection closed before an answer' });
  });

  it('connects to the checked address only: the name is never looked up again', async () => {
    const r = await receiver((_q, res) => res.writeHead(200).end('ok'));
    const calls: string[] = [];
    const resolve: Resolver = async (host) => { calls.push(host); return [{ address: '127.0.0.1', family: 4 }]; };
    // `.invalid` never resolves in real DNS, so reaching the server proves the pinned address was used.
    const result = await attemptDelivery(request(`http://hooks.invalid:${r.port}/in`, { resolve }));
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(calls).toEqual(['hooks.invalid']);
    expect(r.seen[0].headers.host).toBe(`hooks.invalid:${r.port}`);
  });

  it('tries the next checked address when one refuses', async () => {
    const r = await receiver((_q, res) => res.writeHead(200).end('ok'));
    const two: Resolver = async () => [{ address: '127.0.0.2', family: 4 }, { address: '127.0.0.1', family: 4 }];
    const result = await attemptDelivery(request(`http://two.invalid:${r.port}/`, { resolve: two }));
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
  });

  it('re-checks the URL before sending: a name rebound to a private address is refused without connecting', async () => {
    const r = await receiver((_q, res) => res.writeHead(200).end());
    let n = 0;
    const rebinding: Resolver = async () => [{ address: n++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
    const { checkWebhookUrl } = await import('./url-policy.ts');
    const url = `https://rebind.example.com:${r.port}/`;
    expect((await checkWebhookUrl(url, { resolve: rebinding })).ok).toBe(true); // when the URL was set
    const result = await attemptDelivery(request(url, { resolve: rebinding, allowPrivate: false }));
    expect(result).toMatchObject({ ok: false, error: 'url must point at a public host', response: '' });
    expect(result.statusCode).toBeUndefined();
    expect(result.signedAt).toBeUndefined(); // nothing was signed
    expect(r.connections()).toBe(0);
  });

  it('a payment URL failing the policy gets the webhook_url: prefix', async () => {
    const result = await attemptDelivery(request('http://hooks.example.com/', { allowPrivate: false, messagePrefix: 'webhook_url: ' }));
    expect(result).toMatchObject({ ok: false, error: 'webhook_url: url must use https' });
  });

  it('the timeout also covers a resolver that never answers', async () => {
    const stuck: Resolver = () => new Promise(() => {});
    const result = await attemptDelivery(request('https://slow.example.com/', { resolve: stuck, timeoutMs: 100 }));
    expect(result).toMatchObject({ ok: false, error: 'timeout after 100 ms' });
    expect(result.signedAt).toBeUndefined(); // timed out before anything was signed
  });

  it('the timeout also covers a connection never accepted, and the half-open connection is closed', async () => {
    // A listener that accepts nothing: a stopped process. Once its accept queue is full, the kernel
    // drops the next SYN and that connect waits (fillers are opened until one waits).
    const stopped = spawn(process.execPath, ['-e', "const s = require('net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => { console.log(s.address().port); process.kill(process.pid, 'SIGSTOP'); });"], { stdio: ['ignore', 'pipe', 'inherit'] });
    const fillers: net.Socket[] = [];
    try {
      const port = Number(await new Promise<string>((r) => stopped.stdout.once('data', (d: Buffer) => r(d.toString()))));
      for (let connected = true; connected;) {
        const filler = net.connect(port, '127.0.0.1').on('error', () => {});
        fillers.push(filler);
        connected = await new Promise<boolean>((r) => { filler.once('connect', () => r(true)); setTimeout(() => r(false), 200); });
      }
      fillers.pop()!.destroy();
      const sockets = () => process.getActiveResourcesInfo().filter((n) => n === 'TCPSocketWrap').length;
      // The waiting filler's handle is gone once the count is the connected fillers'.
      await vi.waitFor(() => expect(sockets()).toBe(fillers.length), { timeout: 1000 });
      const before = sockets();
      const result = await attemptDelivery(request(`http://127.0.0.1:${port}/`, { timeoutMs: 300 }));
      expect(result).toMatchObject({ ok: false, error: 'timeout after 300 ms', response: '' });
      // Closed with the attempt, not left to the kernel's SYN retries (about two minutes).
      await vi.waitFor(() => expect(sockets()).toBe(before), { timeout: 200 });
    } finally {
      for (const f of fillers) f.destroy();
      stopped.kill('SIGKILL');
    }
  });

  it('exports the caller-side text for a removed account URL', () => {
    expect(NO_WEBHOOK_URL).toBe('no webhook url is set for this mode');
  });
});

// A self-signed certificate for hooks.test, made once per run (openssl is on the machine).
let tlsFiles: { key: string; cert: string } | undefined;
const hasOpenssl = (() => { try { execFileSync('openssl', ['version']); return true; } catch { return false; } })();

describe.skipIf(!hasOpenssl)('attemptDelivery over TLS', () => {
  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-tls-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
      '-subj', '/CN=hooks.test', '-addext', 'subjectAltName=DNS:hooks.test',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    tlsFiles = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  });
  const toLocal: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];

  it('connects to the pinned IP while presenting the URL host as SNI and Host', async () => {
    const r = await receiver((_q, res) => res.writeHead(202).end('queued'), tlsFiles);
    const result = await attemptDelivery(request(`https://hooks.test:${r.port}/x`, { resolve: toLocal, ca: tlsFiles!.cert }));
    expect(result).toMatchObject({ ok: true, statusCode: 202, response: 'queued' });
    expect(r.seen[0].servername).toBe('hooks.test');
    expect(r.seen[0].headers.host).toBe(`hooks.test:${r.port}`);
  });

  it('through a pool, the handshake runs over the connection the attempt opened, and the next attempt reuses it', async () => {
    const r = await receiver((_q, res) => res.writeHead(200).end('ok'), tlsFiles);
    const pool = new ConnectionPool();
    try {
      for (const attempt of [1, 2]) {
        const result = await attemptDelivery(request(`https://hooks.test:${r.port}/x`, { resolve: toLocal, ca: tlsFiles!.cert, pool, attempt }));
        expect(result).toMatchObject({ ok: true, statusCode: 200 });
      }
    } finally {
      pool.close();
    }
    expect(r.connections()).toBe(1);
    expect(r.seen.map((s) => [s.servername, s.headers['x-webhook-attempt']])).toEqual([['hooks.test', '1'], ['hooks.test', '2']]);
  });

  it('an untrusted certificate is a TLS error and nothing is posted', async () => {
    const r = await receiver((_q, res) => res.writeHead(200).end(), tlsFiles);
    const result = await attemptDelivery(request(`https://hooks.test:${r.port}/`, { resolve: toLocal }));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^TLS error: /);
    expect(r.seen).toHaveLength(0);
  });
});
