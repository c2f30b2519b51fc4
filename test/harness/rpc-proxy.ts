// A JSON-RPC proxy in front of a real node (anvil; litecoind, whose URL's credentials go as basic
// auth) that can refuse chosen methods the way a node without them answers ("method not found",
// -32601): the rest is forwarded as it is. Calls are counted per method (each call of a batch counts),
// and HTTP requests (a batch is one) on their own.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postJson } from '../../src/chains/rpc/json-rpc.ts';

export interface RpcProxy {
  url: string;
  /** Methods answered with "method not found". */
  refuse: Set<string>;
  calls: Map<string, number>;
  /** HTTP requests received: the round trips the client made, a batch of calls one of them. */
  requests: number;
  close(): Promise<void>;
}

type Call = { id?: unknown; method?: string };

export async function startRpcProxy(target: string, refuse: readonly string[] = []): Promise<RpcProxy> {
  const proxy: RpcProxy = { url: '', refuse: new Set(refuse), calls: new Map(), requests: 0, close: async () => {} };
  const refused = (c: Call) => ({ jsonrpc: '2.0', id: c.id, error: { code: -32601, message: `the method ${c.method} does not exist/is not available` } });
  const forward = (body: unknown) => postJson(target, body, 30_000);
  const answer = async (c: Call) => {
    proxy.calls.set(c.method ?? '', (proxy.calls.get(c.method ?? '') ?? 0) + 1);
    return proxy.refuse.has(c.method ?? '') ? refused(c) : forward(c);
  };
  // A batch goes on as one batch (its refused calls answered here): forwarded a call at a time, a
  // few dozen at once overflow the node's work queue (litecoind: HTTP 503), which a node never sees
  // from one batch request.
  const answerBatch = async (calls: Call[]) => {
    for (const c of calls) proxy.calls.set(c.method ?? '', (proxy.calls.get(c.method ?? '') ?? 0) + 1);
    const passed = calls.filter((c) => !proxy.refuse.has(c.method ?? ''));
    const answers = passed.length > 0 ? await forward(passed) as Array<{ id?: unknown }> : [];
    const byId = new Map(answers.map((a) => [a.id, a]));
    return calls.map((c) => (proxy.refuse.has(c.method ?? '') ? refused(c) : byId.get(c.id)));
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      proxy.requests++;
      const parsed = JSON.parse(body) as Call | Call[];
      const out = Array.isArray(parsed) ? answerBatch(parsed) : answer(parsed);
      out.then((reply) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply));
      }, (err: Error) => { res.writeHead(502).end(err.message); });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return proxy;
}
