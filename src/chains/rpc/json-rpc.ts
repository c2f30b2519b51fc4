// JSON-RPC 2.0 over HTTP POST, as every node family but XRP-over-WebSocket speaks it (Bitcoin Core and
// its forks, Ethereum clients, rippled's HTTP port). Two kinds of failure are kept apart, because they
// call for different reactions: the node answered with an error (RpcError: asking another node would
// get the same answer) or it did not answer properly at all (TransportError: refused, timed out, an
// HTTP error status, a body that is not JSON-RPC; another node may do better).

export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
  }
}

/** An error and the errors it wraps (`cause`, as viem and fetch nest them), outermost first; at most 8 deep. */
export function* causeChain(err: unknown): Generator<{ code?: unknown; message?: unknown; cause?: unknown }> {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 8; e = e.cause as typeof e, depth++) yield e;
}

/** The node does not offer the method (JSON-RPC "method not found" / "not supported", or said in words). */
export function methodUnsupported(err: unknown): boolean {
  for (const e of causeChain(err)) {
    if (e.code === -32601 || e.code === -32004) return true;
    if (typeof e.message === 'string' && /method .*(not (found|supported|available|exist)|does not exist|unsupported)|(unsupported|unknown) method/i.test(e.message)) return true;
  }
  return false;
}

export class TransportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransportError';
  }
}

export interface RpcCall {
  method: string;
  params?: unknown;
}

/** The URL without user name, password, query or fragment: what may appear in logs and answers. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

/** fetch refuses credentials in a URL: they travel as HTTP basic auth (Bitcoin Core's rpcuser/rpcpassword). */
function request(url: string, body: string, timeoutMs: number): { target: string; init: RequestInit } {
  const u = new URL(url);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (u.username || u.password) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
    u.username = '';
    u.password = '';
  }
  return { target: u.toString(), init: { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) } };
}

/**
 * POSTs JSON to `url` (and `path` under it: java-tron's `/wallet/<name>`) and answers the parsed
 * JSON body, whatever its HTTP status; no answer, one that is not JSON, or refused credentials are a
 * TransportError naming the node without its secrets. Every node client of the chain layer
 * (JSON-RPC, java-tron, rippled over HTTP) posts through it.
 */
export async function postJson(url: string, payload: unknown, timeoutMs: number, path = '', parse: (text: string) => unknown = JSON.parse): Promise<unknown> {
  const { target, init } = request(path ? `${url.replace(/\/+$/, '')}${path}` : url, JSON.stringify(payload), timeoutMs);
  let res: Response;
  try {
    res = await fetch(target, init);
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const why = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : e.cause?.code ?? e.message;
    throw new TransportError(`${redactUrl(url)}: ${why}`);
  }
  const text = await res.text().catch(() => '');
  let json: unknown;
  try {
    json = parse(text);
  } catch {
    // Bitcoin Core answers RPC errors with HTTP 500 and a JSON body, so the status alone decides nothing.
    throw new TransportError(`${redactUrl(url)}: HTTP ${res.status}, not JSON`);
  }
  if (res.status === 401 || res.status === 403) throw new TransportError(`${redactUrl(url)}: HTTP ${res.status} (credentials refused)`);
  return json;
}

function resultOf(url: string, reply: unknown): unknown {
  if (typeof reply !== 'object' || reply === null) throw new TransportError(`${redactUrl(url)}: not a JSON-RPC answer`);
  const r = reply as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } | null };
  if (r.error !== undefined && r.error !== null) {
    const code = typeof r.error.code === 'number' ? r.error.code : -32603;
    const message = typeof r.error.message === 'string' ? r.error.message : 'error without a message';
    throw new RpcError(code, message, r.error.data);
  }
  if (!('result' in r)) throw new TransportError(`${redactUrl(url)}: JSON-RPC answer without result or error`);
  return r.result;
}

/** One call; resolves with its `result`. `parse`: how the answer's text is read (JSON.parse unless told). */
export async function callJsonRpc(url: string, call: RpcCall, timeoutMs: number, parse?: (text: string) => unknown): Promise<unknown> {
  const reply = await postJson(url, { jsonrpc: '2.0', id: 1, method: call.method, params: call.params ?? [] }, timeoutMs, '', parse);
  return resultOf(url, reply);
}

/**
 * Several calls in one HTTP request (a JSON-RPC batch); results in the order of `calls`. A call the
 * node refused makes its entry an RpcError rather than failing the others.
 */
export async function batchJsonRpc(url: string, calls: readonly RpcCall[], timeoutMs: number, parse?: (text: string) => unknown): Promise<Array<unknown | RpcError>> {
  if (calls.length === 0) return [];
  const reply = await postJson(url, calls.map((c, id) => ({ jsonrpc: '2.0', id, method: c.method, params: c.params ?? [] })), timeoutMs, '', parse);
  if (!Array.isArray(reply)) {
    // A node that refuses the whole batch answers one error object.
    resultOf(url, reply);
    throw new TransportError(`${redactUrl(url)}: batch answered with a single result`);
  }
  const byId = new Map<number, unknown>();
  for (const r of reply) if (typeof r === 'object' && r !== null && typeof (r as { id?: unknown }).id === 'number') byId.set((r as { id: number }).id, r);
  return calls.map((_, id) => {
    if (!byId.has(id)) throw new TransportError(`${redactUrl(url)}: batch answer misses call ${id}`);
    try {
      return resultOf(url, byId.get(id));
    } catch (err) {
      if (err instanceof RpcError) return err;
      throw err;
    }
  });
}
