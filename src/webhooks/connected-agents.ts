// Agents that take a connection the delivery attempt opened itself. An attempt connects before it
// builds its HTTP request (http-attempt.ts), so a refused or unreachable receiver costs a bare
// connect, not an HTTP request and its error path; the connection is then handed to the pool's
// agent (connection-pool.ts) in the request's `socket` option.
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** Request options carrying a connection the attempt opened itself (http-attempt.ts connects first). */
export interface ConnectedRequestOptions extends https.RequestOptions {
  socket?: Socket;
}

/** Connections an attempt opened and an agent then took for its request. */
const taken = new WeakSet<Socket>();

/** Whether an agent took `socket`: a request may instead get an idle connection freed meanwhile. */
export function wasTaken(socket: Socket): boolean {
  return taken.has(socket);
}

/**
 * The handed-over connection, when it may still carry the request; marked as taken. An agent that
 * replaces a closed connection for a queued request passes the options the closed one was made
 * with, so a connection already taken (or closed) is never used twice: the agent connects anew.
 */
function takeSocket(options: ConnectedRequestOptions): Socket | undefined {
  const socket = options.socket;
  if (!socket || taken.has(socket) || socket.destroyed) return undefined;
  taken.add(socket);
  return socket;
}

/** The options without a handed-over connection. */
function withoutSocket(options: ConnectedRequestOptions): ConnectedRequestOptions {
  const { socket: _dropped, ...rest } = options;
  return rest;
}

type ConnectionCallback = (err: Error | null, stream: Duplex) => void;

/** An agent that takes the connection handed over in the request's `socket` option instead of opening one. */
export class ConnectedHttpAgent extends http.Agent {
  override createConnection(options: ConnectedRequestOptions, callback?: ConnectionCallback): Duplex | null | undefined {
    return takeSocket(options) ?? super.createConnection(withoutSocket(options), callback);
  }
}

/** The same for HTTPS: tls.connect runs the handshake over the given `socket`. */
export class ConnectedHttpsAgent extends https.Agent {
  override createConnection(options: ConnectedRequestOptions, callback?: ConnectionCallback): Duplex | null | undefined {
    return super.createConnection(takeSocket(options) ? options : withoutSocket(options), callback);
  }
}

/** An agent for one attempt's own connection, closed after it (no pool, or a retry after a stale one). */
export function oneUseAgent(scheme: 'http:' | 'https:'): http.Agent {
  return scheme === 'https:' ? new ConnectedHttpsAgent() : new ConnectedHttpAgent();
}

/**
 * Whether a request given to the agent now would open a new connection: none idle, room for one
 * more, none queued (all of one agent's connections share its key). Otherwise it reuses or waits
 * for a connection, and opening one first would be wasted.
 */
export function wouldConnect(agent: http.Agent): boolean {
  const count = (lists: NodeJS.ReadOnlyDict<unknown[]>) => Object.values(lists).reduce((n, list) => n + (list?.length ?? 0), 0);
  const idle = count(agent.freeSockets);
  return idle === 0 && count(agent.sockets) < agent.maxSockets && count(agent.requests) === 0;
}
