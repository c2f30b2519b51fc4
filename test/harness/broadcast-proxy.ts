// A JSON-RPC proxy in front of an EVM node that can stall a broadcast (it never reaches the node),
// or forward it and never answer: the moments a kill -9 test stops the service at. It can also
// forward it and drop the connection (the node took it, the answer is lost), or refuse it in the
// node's words without forwarding it (a node of its own mind). `affects` picks the broadcasts the
// mode applies to (default: all); the others pass.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxyMode = 'pass' | 'stall' | 'no-answer' | 'drop' | 'refuse';

/** What a proxy in `refuse` mode answers. */
export const PROXY_REFUSAL = 'transaction underpriced';

export interface BroadcastProxy {
  url: string;
  mode: ProxyMode;
  /** Every raw transaction broadcast through it, in order. */
  broadcasts: string[];
  /** Resolves with the next broadcast the mode applies to. */
  sawBroadcast(): Promise<string>;
  close(): Promise<void>;
}

export async function broadcastProxy(target: string, affects: (raw: string) => boolean = () => true): Promise<BroadcastProxy> {
  const waiters: ((raw: string) => void)[] = [];
  const state = {
    mode: 'pass' as ProxyMode, broadcasts: [] as string[],
    sawBroadcast: () => new Promise<string>((r) => waiters.push(r)),
  };
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', async () => {
      const call = JSON.parse(body) as { method?: string; params?: string[] };
      const raw = !Array.isArray(call) && call.method === 'eth_sendRawTransaction' ? call.params![0] : null;
      if (raw) state.broadcasts.push(raw);
      const hit = raw !== null && affects(raw);
      const mode = hit ? state.mode : 'pass';
      if (hit && mode === 'stall') { for (const w of waiters.splice(0)) w(raw); return; }
      if (hit && mode === 'refuse') {
        for (const w of waiters.splice(0)) w(raw);
        const { id } = call as { id?: unknown };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: PROXY_REFUSAL } }));
        return;
      }
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text());
      if (hit) for (const w of waiters.splice(0)) w(raw);
      if (hit && mode === 'no-answer') return;
      if (hit && mode === 'drop') { req.socket.destroy(); return; }
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => { srv.closeAllConnections(); srv.close(() => r()); }),
  });
}
