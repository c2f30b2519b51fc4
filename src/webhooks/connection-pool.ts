// Kept-alive connections for delivery attempts, safe against DNS rebinding: a connection is reused
// only for the same scheme, host, port and set of addresses the URL policy approved. Every attempt
// still runs the policy first; when the name now resolves elsewhere, the key differs and the attempt
// gets (or opens) a connection to the new addresses, never one to the old. Redirects are never
// followed (http.request does not), so a pooled connection only ever carries requests to its key.
import type http from 'node:http';
import type https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './url-policy.ts';
import { ConnectedHttpAgent, ConnectedHttpsAgent } from './connected-agents.ts';

export interface ConnectionPoolOptions {
  /** Connections per key at most (the worker's per-host limit keeps attempts below it anyway). */
  maxSocketsPerKey?: number;
  /** Idle connections kept per key. */
  maxFreePerKey?: number;
  /** Keys remembered; the least recently used one beyond this drops its idle connections. */
  maxKeys?: number;
  /** An idle connection is closed after this long (below the usual 5 s of servers, to avoid racing their close). */
  idleMs?: number;
}

/** Hands the socket only the addresses the policy approved, so no second DNS answer is ever used. */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
    const usable = addresses.filter((a) => wanted === 0 || a.family === wanted);
    if (usable.length === 0) {
      callback(Object.assign(new Error('no checked address of the requested family'), { code: 'ENOTFOUND' }), '');
    } else if (options.all) {
      callback(null, usable.map((a) => ({ address: a.address, family: a.family })));
    } else {
      callback(null, usable[0].address, usable[0].family);
    }
  };
}

/** The reuse key: scheme, host (lower case), port and the checked addresses in a stable order. */
export function connectionKey(scheme: string, host: string, port: number, addresses: readonly ResolvedAddress[]): string {
  const ips = addresses.map((a) => a.address).sort().join(',');
  return `${scheme}//${host.toLowerCase()}:${port}@${ips}`;
}

export class ConnectionPool {
  readonly #opts: Required<ConnectionPoolOptions>;
  /** In least recently used order (a hit moves its key to the end). */
  readonly #agents = new Map<string, http.Agent>();
  #closed = false;

  constructor(opts: ConnectionPoolOptions = {}) {
    this.#opts = { maxSocketsPerKey: 32, maxFreePerKey: 32, maxKeys: 256, idleMs: 4000, ...opts };
  }

  get keys(): number {
    return this.#agents.size;
  }

  /** The agent for one checked destination; undefined once closed (the caller then opens a fresh connection). */
  agentFor(scheme: 'http:' | 'https:', host: string, port: number, addresses: readonly ResolvedAddress[]): http.Agent | undefined {
    if (this.#closed) return undefined;
    const key = connectionKey(scheme, host, port, addresses);
    let agent = this.#agents.get(key);
    if (agent) {
      this.#agents.delete(key);
    } else {
      const options: https.AgentOptions = {
        keepAlive: true, maxSockets: this.#opts.maxSocketsPerKey, maxFreeSockets: this.#opts.maxFreePerKey,
        timeout: this.#opts.idleMs, scheduling: 'lifo', lookup: pinnedLookup(addresses),
      };
      agent = scheme === 'https:' ? new ConnectedHttpsAgent(options) : new ConnectedHttpAgent(options);
      this.#evictBeyond(this.#opts.maxKeys - 1);
    }
    this.#agents.set(key, agent);
    return agent;
  }

  /** Closes idle connections now; connections in use close when their attempt ends. */
  close(): void {
    this.#closed = true;
    this.#evictBeyond(0);
  }

  // Drops the least recently used keys. Their idle connections close now; one still carrying an
  // attempt goes back to its agent afterwards and closes at the idle timeout.
  #evictBeyond(size: number): void {
    for (const [key, agent] of this.#agents) {
      if (this.#agents.size <= size) break;
      this.#agents.delete(key);
      for (const sockets of Object.values(agent.freeSockets)) for (const s of sockets ?? []) s.destroy();
    }
  }
}
