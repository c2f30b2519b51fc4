// rippled's public API over a chain's NodeEndpoints, on either of its transports: an `http(s)://`
// URL is JSON-RPC (`{method, params: [{…}]}` → `{result: {…, status}}`), a `ws(s)://` URL is the
// WebSocket API (`{id, command, …}` → `{id, status, result}`), one connection per URL kept open and
// made again after it drops. Every request asks for API version 2 (`tx_json` + `meta`). An error
// rippled answers (`status: 'error'`) is an RpcError with rippled's error name as its message
// (asking another node changes nothing); no answer, or one that is not rippled's, is a
// TransportError (the endpoints move on to the next node).
import { postJson, RpcError, TransportError, redactUrl } from '../rpc/json-rpc.ts';
import type { NodeEndpoints } from '../rpc/endpoints.ts';

export const XRP_RPC_TIMEOUT_MS = 10_000;
export const XRP_API_VERSION = 2;

export type XrpResult = Record<string, unknown>;

/** rippled's own error: `error` (e.g. `txnNotFound`, `actNotFound`), with its message kept in `data`. */
export class XrpNodeError extends RpcError {
  readonly error: string;
  constructor(error: string, code: number, message: string) {
    super(code, error, message);
    this.error = error;
  }
}

function resultOf(url: string, body: unknown): XrpResult {
  if (typeof body !== 'object' || body === null) throw new TransportError(`${redactUrl(url)}: not a rippled answer`);
  const b = body as Record<string, unknown>;
  // JSON-RPC keeps status and error inside `result`; WebSocket puts them beside it.
  const r = (typeof b.result === 'object' && b.result !== null ? b.result : {}) as XrpResult;
  const status = b.status ?? r.status;
  const error = b.error ?? r.error;
  if (status === 'error' || typeof error === 'string') {
    const code = Number(b.error_code ?? r.error_code ?? -1);
    throw new XrpNodeError(String(error ?? 'unknown'), code, String(b.error_message ?? r.error_message ?? error ?? ''));
  }
  if (status !== 'success' || typeof b.result !== 'object' || b.result === null) throw new TransportError(`${redactUrl(url)}: not a rippled answer`);
  return r;
}

async function httpRequest(url: string, method: string, params: Record<string, unknown>, timeoutMs: number): Promise<XrpResult> {
  return resultOf(url, await postJson(url, { method, params: [{ ...params, api_version: XRP_API_VERSION }] }, timeoutMs));
}

interface Waiting { resolve: (r: XrpResult) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }

/** One WebSocket connection to a rippled; requests matched to answers by id. */
class WsConnection {
  readonly #url: string;
  readonly #waiting = new Map<number, Waiting>();
  #socket: WebSocket | null = null;
  #open: Promise<WebSocket> | null = null;
  #next = 1;

  constructor(url: string) {
    this.#url = url;
  }

  #connect(timeoutMs: number): Promise<WebSocket> {
    if (this.#open) return this.#open;
    this.#open = new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(this.#url);
      const timer = setTimeout(() => { ws.close(); fail(`no connection within ${timeoutMs} ms`); }, timeoutMs);
      const fail = (why: string) => {
        clearTimeout(timer);
        this.#drop(why);
        reject(new TransportError(`${redactUrl(this.#url)}: ${why}`));
      };
      ws.onopen = () => { clearTimeout(timer); this.#socket = ws; resolve(ws); };
      ws.onerror = () => { if (this.#socket !== ws) fail('connection refused'); };
      ws.onclose = () => { if (this.#socket === ws) this.#drop('connection closed'); else fail('connection closed'); };
      ws.onmessage = (ev) => this.#answer(String(ev.data));
    });
    this.#open.catch(() => {});
    return this.#open;
  }

  #drop(why: string): void {
    this.#socket = null;
    this.#open = null;
    for (const [id, w] of this.#waiting) {
      clearTimeout(w.timer);
      w.reject(new TransportError(`${redactUrl(this.#url)}: ${why}`));
      this.#waiting.delete(id);
    }
  }

  #answer(text: string): void {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    // stream messages (ledgerClosed, transaction) carry no id: the watcher polls, so they are ignored
    const w = typeof msg.id === 'number' ? this.#waiting.get(msg.id) : undefined;
    if (!w) return;
    this.#waiting.delete(msg.id as number);
    clearTimeout(w.timer);
    try {
      w.resolve(resultOf(this.#url, msg));
    } catch (err) {
      w.reject(err as Error);
    }
  }

  async request(command: string, params: Record<string, unknown>, timeoutMs: number): Promise<XrpResult> {
    const ws = await this.#connect(timeoutMs);
    const id = this.#next++;
    return new Promise<XrpResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new TransportError(`${redactUrl(this.#url)}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiting.set(id, { resolve, reject, timer });
      ws.send(JSON.stringify({ ...params, id, command, api_version: XRP_API_VERSION }));
    });
  }

  close(): void {
    const ws = this.#socket;
    this.#drop('closed by the service');
    ws?.close();
  }
}

export class XrpRpc {
  readonly endpoints: NodeEndpoints;
  readonly #timeoutMs: number;
  readonly #sockets = new Map<string, WsConnection>();

  constructor(endpoints: NodeEndpoints, timeoutMs = XRP_RPC_TIMEOUT_MS) {
    this.endpoints = endpoints;
    this.#timeoutMs = timeoutMs;
  }

  /** `failures`: filled with the transport failures of nodes tried before the one that answered. */
  request(method: string, params: Record<string, unknown> = {}, failures?: string[]): Promise<XrpResult> {
    return this.endpoints.use((url) => {
      if (!/^wss?:/i.test(url)) return httpRequest(url, method, params, this.#timeoutMs);
      let c = this.#sockets.get(url);
      if (!c) {
        c = new WsConnection(url);
        this.#sockets.set(url, c);
      }
      return c.request(method, params, this.#timeoutMs);
    }, failures);
  }

  /** Closes the WebSocket connections (the service stops). */
  close(): void {
    for (const c of this.#sockets.values()) c.close();
    this.#sockets.clear();
  }
}
