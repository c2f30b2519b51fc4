// A local rippled for the XRP tests: the simulated ledger behind rippled's two transports on one port,
// JSON-RPC over HTTP POST (`{method, params: [{…}]}` → `{result: {…, status}}`) and WebSocket
// (`{id, command, …}` → `{id, result, status, type: 'response'}`), with the `ledger` and account
// subscription streams. Test hooks: close a ledger, inject a transaction, hold validation back,
// answer garbage, stop and start on the same port (an outage).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { RESERVE_BASE_DROPS, RESERVE_INC_DROPS, BASE_FEE_DROPS, XrpLedger, resultCode, resultMessage, type ClosedLedger } from './ledger.ts';
import { RpcFailure, handle, txView } from './methods.ts';

export { GENESIS, XrpLedger } from './ledger.ts';

interface Client {
  ws: WebSocket;
  ledgerStream: boolean;
  accounts: Set<string>;
  api: number;
}

export interface XrpSimOptions {
  /** Close a ledger this long after each accepted submit (as a network would); off when undefined. */
  autoCloseMs?: number;
  clock?: () => number;
  /** The port to listen on (default: a free one). */
  port?: number;
}

export class XrpSim {
  readonly ledger: XrpLedger;
  /** Every answer is an HTML error page, and WebSocket connections are refused (a broken node). */
  garbage = false;
  readonly #server: http.Server;
  readonly #wss: WebSocketServer;
  readonly #clients = new Set<Client>();
  readonly #opts: XrpSimOptions;
  #port = 0;
  #emitted = 0;
  #autoClose: NodeJS.Timeout | null = null;
  /** Methods called, in order (what a client really asked for). */
  readonly calls: string[] = [];

  constructor(opts: XrpSimOptions = {}) {
    this.#opts = opts;
    this.#port = opts.port ?? 0;
    this.ledger = new XrpLedger(opts.clock);
    this.#emitted = this.ledger.validatedIndex;
    this.#server = http.createServer((req, res) => this.#http(req, res));
    this.#wss = new WebSocketServer({ noServer: true });
    this.#server.on('upgrade', (req, socket, head) => {
      if (this.garbage) return socket.destroy();
      this.#wss.handleUpgrade(req, socket, head, (ws) => this.#connect(ws));
    });
  }

  get httpUrl(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.#port}`;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  /** Stops answering: connections dropped, the port closed (start() reopens the same one). */
  async stop(): Promise<void> {
    for (const c of this.#clients) c.ws.terminate();
    this.#clients.clear();
    this.#server.closeAllConnections();
    await new Promise((r) => this.#server.close(r));
  }

  /** Closes the open ledger now; subscribers hear of it and of its validated transactions. */
  close(): ClosedLedger {
    const l = this.ledger.close();
    this.#publish();
    return l;
  }

  /** Validates every closed ledger held back by `ledger.validationLag`, and publishes them. */
  validateAll(): void {
    this.ledger.validationLag = 0;
    this.#publish();
  }

  #publish(): void {
    const top = this.ledger.validatedIndex;
    for (let i = this.#emitted + 1; i <= top; i++) {
      const l = this.ledger.ledger(i)!;
      for (const c of this.#clients) {
        if (c.ledgerStream) {
          this.#send(c, {
            type: 'ledgerClosed', fee_base: Number(BASE_FEE_DROPS), ledger_hash: l.hash, ledger_index: l.index, ledger_time: l.closeTime,
            reserve_base: Number(RESERVE_BASE_DROPS), reserve_inc: Number(RESERVE_INC_DROPS), txn_count: l.txs.length, validated_ledgers: `1-${i}`,
          });
        }
        for (const t of l.txs) {
          const parties = [t.tx.Account, t.tx.Destination].filter((a): a is string => typeof a === 'string');
          if (!parties.some((a) => c.accounts.has(a))) continue;
          const view = txView(t, l, c.api, true);
          const r = String(t.meta.TransactionResult);
          const body = c.api > 1 ? view : { transaction: Object.fromEntries(Object.entries(view).filter(([k]) => !['meta', 'validated', 'ledger_index'].includes(k))), meta: t.meta, ledger_index: l.index, ledger_hash: l.hash, validated: true };
          this.#send(c, { type: 'transaction', ...body, engine_result: r, engine_result_code: resultCode(r), engine_result_message: resultMessage(r) });
        }
      }
    }
    this.#emitted = Math.max(this.#emitted, top);
  }

  #send(c: Client, msg: unknown): void {
    if (c.ws.readyState === c.ws.OPEN) c.ws.send(JSON.stringify(msg));
  }

  #call(method: string, params: Record<string, unknown>, api: number): Record<string, unknown> {
    this.calls.push(method);
    const result = handle(this.ledger, method, params, api);
    if (method === 'ledger_accept') this.#publish();
    if (method === 'submit' && result.applied === true && this.#opts.autoCloseMs !== undefined && !this.#autoClose) {
      this.#autoClose = setTimeout(() => { this.#autoClose = null; this.close(); }, this.#opts.autoCloseMs);
    }
    return result;
  }

  #http(req: http.IncomingMessage, res: http.ServerResponse): void {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      if (this.garbage) return void res.writeHead(502, { 'content-type': 'text/html' }).end('<html>502 Bad Gateway</html>');
      let request: { method?: unknown; params?: unknown };
      try {
        request = JSON.parse(body);
      } catch {
        return void res.writeHead(400).end('Unable to parse request: ');
      }
      const params = (Array.isArray(request.params) ? request.params[0] : undefined) ?? {};
      const method = String(request.method ?? '');
      const api = typeof params.api_version === 'number' ? params.api_version : 1;
      let result: Record<string, unknown>;
      try {
        result = { ...this.#call(method, params, api), status: 'success' };
      } catch (err) {
        if (!(err instanceof RpcFailure)) throw err;
        result = { error: err.error, error_code: err.code, error_message: err.message, request: { command: method, ...params }, status: 'error' };
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result }));
    });
  }

  #connect(ws: WebSocket): void {
    const c: Client = { ws, ledgerStream: false, accounts: new Set(), api: 1 };
    this.#clients.add(c);
    ws.on('close', () => this.#clients.delete(c));
    ws.on('message', (data) => {
      let req: Record<string, unknown>;
      try {
        req = JSON.parse(String(data));
      } catch {
        return this.#send(c, { error: 'invalidParams', status: 'error', type: 'response' });
      }
      const { id, command, ...params } = req;
      const api = typeof params.api_version === 'number' ? params.api_version : 1;
      try {
        let result: Record<string, unknown>;
        if (command === 'subscribe' || command === 'unsubscribe') {
          result = this.#subscribe(c, command === 'subscribe', params, api);
        } else {
          result = this.#call(String(command), params, api);
        }
        this.#send(c, { id, result, status: 'success', type: 'response', ...(api > 1 ? { api_version: api } : {}) });
      } catch (err) {
        if (!(err instanceof RpcFailure)) throw err;
        this.#send(c, { id, error: err.error, error_code: err.code, error_message: err.message, request: req, status: 'error', type: 'response' });
      }
    });
  }

  #subscribe(c: Client, on: boolean, p: Record<string, unknown>, api: number): Record<string, unknown> {
    this.calls.push(on ? 'subscribe' : 'unsubscribe');
    c.api = api;
    const streams = Array.isArray(p.streams) ? p.streams : [];
    if (streams.includes('ledger')) c.ledgerStream = on;
    for (const a of Array.isArray(p.accounts) ? p.accounts : []) {
      if (on) c.accounts.add(String(a));
      else c.accounts.delete(String(a));
    }
    if (!on || !streams.includes('ledger')) return {};
    const v = this.ledger.ledger(this.ledger.validatedIndex)!;
    return {
      fee_base: Number(BASE_FEE_DROPS), ledger_hash: v.hash, ledger_index: v.index, ledger_time: v.closeTime,
      reserve_base: Number(RESERVE_BASE_DROPS), reserve_inc: Number(RESERVE_INC_DROPS), validated_ledgers: `1-${v.index}`,
    };
  }
}

/** Starts a simulated rippled on a free local port. */
export async function startXrpSim(opts: XrpSimOptions = {}): Promise<XrpSim> {
  const sim = new XrpSim(opts);
  await sim.start();
  return sim;
}
