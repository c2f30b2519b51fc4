// JSON-RPC over HTTP against local servers that answer like nodes do (and like broken ones), and
// the failover of a chain's node list.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, TransportError, batchJsonRpc, callJsonRpc, redactUrl } from './json-rpc.ts';
import { NoNodeAnswered, NodeEndpoints } from './endpoints.ts';

type Handler = (body: any, req: http.IncomingMessage, res: http.ServerResponse) => void;

const servers: http.Server[] = [];
async function node(handler: Handler): Promise<string> {
  const srv = http.createServer((req, res) => {
    let data = '';
    req.on('data', (d) => { data += d; });
    req.on('end', () => handler(JSON.parse(data), req, res));
  });
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
}
const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};
const echo: Handler = (b, req, res) => json(res, 200, Array.isArray(b)
  ? b.map((c) => ({ jsonrpc: '2.0', id: c.id, result: c.method }))
  : { jsonrpc: '2.0', id: b.id, result: { method: b.method, params: b.params, auth: req.headers.authorization ?? null } });

let good: string;
let refused: string;
let garbage: string;
let slow: string;
let failing: string;
let bitcoinError: string;

beforeAll(async () => {
  good = await node(echo);
  garbage = await node((_b, _r, res) => { res.writeHead(200).end('<html>bad gateway</html>'); });
  slow = await node(() => { /* never answers */ });
  failing = await node((b, _r, res) => json(res, 200, { jsonrpc: '2.0', id: b.id, error: { code: -32000, message: 'nonce too low' } }));
  // Bitcoin Core: an RPC error comes with HTTP 500 and a JSON body.
  bitcoinError = await node((b, _r, res) => json(res, 500, { result: null, error: { code: -5, message: 'Block not found' }, id: b.id }));
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  refused = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((r) => closed.close(r));
});
afterAll(() => { for (const s of servers) s.closeAllConnections(), s.close(); });

describe('callJsonRpc', () => {
  it('posts a JSON-RPC 2.0 call and resolves with its result; credentials in the URL go as basic auth', async () => {
    const u = new URL(good);
    u.username = 'rpc';
    u.password = 'p@ss';
    const r = await callJsonRpc(u.toString(), { method: 'getblockcount', params: [1] }, 2000) as Record<string, unknown>;
    expect(r).toEqual({ method: 'getblockcount', params: [1], auth: `Basic ${Buffer.from('rpc:p@ss').toString('base64')}` });
  });

  it('an error the node answers is an RpcError with its code, also under HTTP 500', async () => {
    await expect(callJsonRpc(failing, { method: 'eth_sendRawTransaction' }, 2000)).rejects.toEqual(new RpcError(-32000, 'nonce too low'));
    const err = await callJsonRpc(bitcoinError, { method: 'getblock' }, 2000).catch((e: unknown) => e) as RpcError;
    expect(err).toBeInstanceOf(RpcError);
    expect(err.code).toBe(-5);
  });

  it('refused, garbage and silence are TransportErrors naming the node without credentials', async () => {
    await expect(callJsonRpc(refused, { method: 'x' }, 2000)).rejects.toBeInstanceOf(TransportError);
    await expect(callJsonRpc(garbage, { method: 'x' }, 2000)).rejects.toThrow(/HTTP 200, not JSON/);
    await expect(callJsonRpc(slow, { method: 'x' }, 100)).rejects.toThrow(/no answer within 100 ms/);
    expect(redactUrl('http://user:secret@host:8332/wallet?x=1')).toBe('http://host:8332/wallet');
  });

  it('a batch resolves in call order', async () => {
    expect(await batchJsonRpc(good, [{ method: 'a' }, { method: 'b' }, { method: 'c' }], 2000)).toEqual(['a', 'b', 'c']);
    expect(await batchJsonRpc(good, [], 2000)).toEqual([]);
  });
});

describe('NodeEndpoints', () => {
  const call = (e: NodeEndpoints) => e.use((url) => callJsonRpc(url, { method: 'eth_blockNumber' }, 200));
  const sendThrough = (e: NodeEndpoints, failures: string[]) => e.use((url) => callJsonRpc(url, { method: 'eth_sendRawTransaction' }, 200), failures);

  it('moves on from a node that fails to the next, and stays there', async () => {
    const e = new NodeEndpoints([refused, garbage, good]);
    const switches: number[] = [];
    e.onSwitch((i) => switches.push(i));
    expect(await call(e)).toMatchObject({ method: 'eth_blockNumber' });
    expect(e.index).toBe(2);
    expect(switches).toEqual([1, 2]);
    expect(e.lastError).toMatch(/HTTP 200, not JSON/);
    await call(e);
    expect(e.index).toBe(2);
    expect(e.lastError).toBeNull();
  });

  it('does not move on when the node answered with an error', async () => {
    const e = new NodeEndpoints([failing, good]);
    await expect(call(e)).rejects.toBeInstanceOf(RpcError);
    expect(e.index).toBe(0);
  });

  it('fails when no node answers, naming each failure', async () => {
    const e = new NodeEndpoints([refused, slow]);
    const err = await call(e).catch((x: unknown) => x) as Error;
    expect(err).toBeInstanceOf(NoNodeAnswered);
    expect(err.message).toMatch(/no answer within 200 ms/);
  });

  it('hands the caller the failures of the nodes tried before the one that answered, also when that one answered with an error', async () => {
    const answered: string[] = [];
    await sendThrough(new NodeEndpoints([refused, garbage, good]), answered);
    expect(answered).toHaveLength(2);
    expect(answered[1]).toMatch(/HTTP 200, not JSON/);
    const refusedAfter: string[] = [];
    await expect(sendThrough(new NodeEndpoints([garbage, failing]), refusedAfter)).rejects.toBeInstanceOf(RpcError);
    expect(refusedAfter).toEqual([expect.stringMatching(/HTTP 200, not JSON/)]);
    const firstTry: string[] = [];
    await sendThrough(new NodeEndpoints([good]), firstTry);
    expect(firstTry).toEqual([]);
  });

  it('calls running at the same time all move on to the node that answers (a failure moves on only from the node it was seen on)', async () => {
    const e = new NodeEndpoints([refused, good]);
    const answers = await Promise.all([call(e), call(e), call(e)]);
    expect(answers).toHaveLength(3);
    expect(e.index).toBe(1);
  });

  it('skip() moves past a node the caller found stale', async () => {
    const e = new NodeEndpoints([good, garbage]);
    e.skip('tip 600 s old');
    expect(e.index).toBe(1);
    expect(e.lastError).toMatch(/tip 600 s old/);
  });
});
