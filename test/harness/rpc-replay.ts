// A JSON-RPC node that answers from recorded replies (test/fixtures/utxo): for the Bitcoin-family
// nodes that cannot run here (Bitcoin Core, Dogecoin), the shapes their documentation gives,
// served over real HTTP so the code under test speaks to them as to a node. A reply is keyed by
// `method JSON(params)`; `{error: {code, message}}` answers as the node's error; anything not
// recorded is the node's "Method not found". Calls are counted per key.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReplayNode {
  url: string;
  calls: Map<string, number>;
  close(): Promise<void>;
}

type Reply = unknown;

export async function startReplayNode(replies: Record<string, Reply>): Promise<ReplayNode> {
  const calls = new Map<string, number>();
  const answer = (req: { id?: unknown; method?: string; params?: unknown[] }) => {
    const key = `${req.method} ${JSON.stringify(req.params ?? [])}`.replace(/,/g, ', ');
    calls.set(key, (calls.get(key) ?? 0) + 1);
    if (!(key in replies)) return { result: null, error: { code: -32601, message: 'Method not found' }, id: req.id };
    const r = replies[key] as { error?: unknown };
    if (r && typeof r === 'object' && 'error' in r) return { result: null, error: r.error, id: req.id };
    return { result: replies[key], error: null, id: req.id };
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      const parsed = JSON.parse(body);
      const out = Array.isArray(parsed) ? parsed.map(answer) : answer(parsed);
      // Bitcoin Core answers a single call's error with HTTP 500, a batch with 200
      const status = !Array.isArray(out) && out.error ? 500 : 200;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`, calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
