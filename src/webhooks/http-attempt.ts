// One delivery attempt (spec 6.1): re-check the URL, sign afresh, POST the stored body to exactly the
// addresses just checked, and report what happened. Never follows a redirect, never reads more of
// the answer than the 500 characters a history entry keeps, never waits longer than the timeout.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { systemClock, type Clock } from '../platform/clock.ts';
import { ipFamily } from './ip-ranges.ts';
import { signatureHeader, unixSeconds } from './signing.ts';
import { bareHost, checkWebhookUrl, type ResolvedAddress, type Resolver } from './url-policy.ts';
import { describeAttemptError, timeoutError } from './attempt-errors.ts';
import { pinnedLookup, type ConnectionPool } from './connection-pool.ts';
import { oneUseAgent, wasTaken, wouldConnect, type ConnectedRequestOptions } from './connected-agents.ts';

export const USER_AGENT = 'gateway-webhooks/1.0';
/** The error of an attempt to the account URL after it was removed; the caller records it. */
export const NO_WEBHOOK_URL = 'no webhook url is set for this mode';
/** History entries keep the first 500 characters of an answer (spec part 2, part 8). */
export const RESPONSE_KEPT_CHARS = 500;

export interface AttemptRequest {
  url: string;
  /** The stored payload, posted and signed byte for byte. */
  body: string;
  secret: string;
  deliveryId: string;
  eventType: string;
  /** 1 to 7, sent as X-Webhook-Attempt. */
  attempt: number;
  /** WEBHOOK_TIMEOUT_MS: covers the URL check, connecting and the answer's status line. */
  timeoutMs: number;
  allowPrivate?: boolean;
  resolve?: Resolver;
  /** Prefix of policy messages: `webhook_url: ` for a payment's own URL. */
  messagePrefix?: string;
  /** Gives the signature's `t`. */
  clock?: Clock;
  /** Extra trusted certificates (tests with a local HTTPS server). */
  ca?: string | Buffer;
  /** Kept-alive connections keyed by the checked destination; without one, every attempt opens a fresh connection. */
  pool?: ConnectionPool;
}

export interface AttemptResult {
  /** An answer with a 2xx status arrived within the timeout. */
  ok: boolean;
  statusCode?: number;
  /** Set on every failure: a policy message, `endpoint answered 500`, `timeout after 10000 ms`, ... */
  error?: string;
  /** The first 500 characters of the answer ('' when there was none). */
  response: string;
  millis: number;
  /**
   * The `t` of this attempt's signature; absent when the attempt ended before anything was signed
   * (the URL refused or its check timed out), so a history entry's `signed` never names a signature
   * that was not made (spec part 2 history entry).
   */
  signedAt?: number;
}

export const answeredError = (statusCode: number) => `endpoint answered ${statusCode}`;

// Keeps the first characters of a body; reports when enough has been read to stop.
class AnswerText {
  #decoder = new StringDecoder('utf8');
  #text = '';
  add(chunk: Buffer): boolean {
    this.#text += this.#decoder.write(chunk);
    // 2 code units per character at most, so this many always holds the characters kept.
    return this.#text.length >= RESPONSE_KEPT_CHARS * 2;
  }
  get value(): string {
    return Array.from(this.#text).slice(0, RESPONSE_KEPT_CHARS).join('');
  }
}

export async function attemptDelivery(req: AttemptRequest): Promise<AttemptResult> {
  const started = performance.now();
  const millis = () => Math.round(performance.now() - started);
  const clock = req.clock ?? systemClock;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), req.timeoutMs); });
  try {
    const check = await Promise.race([
      checkWebhookUrl(req.url, { allowPrivate: req.allowPrivate, resolve: req.resolve, messagePrefix: req.messagePrefix }),
      deadline,
    ]);
    if (check === 'timeout') return { ok: false, error: timeoutError(req.timeoutMs), response: '', millis: millis() };
    if (!check.ok) return { ok: false, error: check.error, response: '', millis: millis() };
    const signedAt = unixSeconds(clock.now());
    const outcome = await post(req, check.parsed, check.addresses, signedAt, deadline);
    return { ...outcome, millis: millis(), signedAt };
  } finally {
    clearTimeout(timer);
  }
}

type PostOutcome = Omit<AttemptResult, 'millis' | 'signedAt'>;

// A kept-alive connection the receiver closed just as it was reused fails before any answer; such
// a request never reached the application, so it is sent once more on a fresh connection.
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

function post(
  req: AttemptRequest, target: URL, addresses: ResolvedAddress[], signedAt: number, deadline: Promise<'timeout'>,
): Promise<PostOutcome> {
  // Kept as text: the headers and the body then leave in one write.
  const body = req.body;
  const host = bareHost(target);
  const scheme = target.protocol === 'https:' ? 'https:' : 'http:';
  const https_ = scheme === 'https:';
  const port = target.port === '' ? (https_ ? 443 : 80) : Number(target.port);
  const lookup = pinnedLookup(addresses);
  const options: ConnectedRequestOptions = {
    method: 'POST',
    hostname: host,
    port,
    path: `${target.pathname}${target.search}`,
    lookup,
    headers: {
      Host: target.host,
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'X-Webhook-Id': req.deliveryId,
      'X-Webhook-Event': req.eventType,
      'X-Webhook-Attempt': String(req.attempt),
      'X-Webhook-Signature': signatureHeader(req.secret, body, signedAt),
      'Content-Length': String(Buffer.byteLength(body, 'utf8')),
    },
  };
  if (https_) {
    if (ipFamily(host) === 0) options.servername = host;
    if (req.ca !== undefined) options.ca = req.ca;
  }

  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    let statusCode: number | undefined;
    const text = new AnswerText();
    let request: http.ClientRequest | undefined;
    let answer: http.IncomingMessage | undefined;
    /** A connection being opened, before any request was built on it. */
    let connecting: net.Socket | undefined;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      connecting?.destroy();
      // A complete exchange leaves a kept-alive connection to its agent; anything else closes it.
      if (request && (!outcome.ok || !answer?.complete)) request.destroy();
      resolve(outcome);
    };
    /** No answer: the connection failed (refused, unreachable, closed, TLS). */
    const failed = (err: unknown) => finish({ ok: false, error: describeAttemptError(err), response: '' });
    const answered = () => {
      const code = statusCode!;
      const ok = code >= 200 && code < 300;
      finish(ok ? { ok, statusCode: code, response: text.value } : { ok, statusCode: code, error: answeredError(code), response: text.value });
    };
    const send = (agent: http.Agent, socket?: net.Socket) => {
      const withConnection: ConnectedRequestOptions = { ...options, agent, socket };
      const sent = (https_ ? https : http).request(withConnection, (res) => {
        answer = res;
        statusCode = res.statusCode ?? 0;
        res.on('data', (chunk: Buffer) => { if (text.add(chunk)) answered(); });
        res.on('end', answered);
        res.on('error', answered);
        res.on('close', answered);
      });
      request = sent;
      // The agent may have handed this request an idle connection freed since: the one opened for it then closes.
      if (socket) sent.once('socket', () => { if (!wasTaken(socket)) socket.destroy(); });
      sent.on('error', (err: NodeJS.ErrnoException) => {
        if (settled || sent !== request) return;
        if (statusCode !== undefined) answered();
        else if (sent.reusedSocket && STALE_CONNECTION.has(err.code ?? '')) connectThenSend(oneUseAgent(scheme));
        else failed(err);
      });
      sent.end(body, 'utf8');
    };
    // A new connection is opened before the request is built: a refused or unreachable receiver
    // (the usual reason an attempt fails) then costs a bare connect, a third of what an HTTP
    // request failing to connect costs Node. The same checked addresses, tried the same way, and
    // no Nagle delay, as Node's agents connect.
    const connectThenSend = (agent: http.Agent) => {
      const socket = net.connect({ host, port, lookup, noDelay: true });
      connecting = socket;
      socket.once('error', failed);
      socket.once('connect', () => {
        connecting = undefined;
        socket.removeListener('error', failed);
        send(agent, socket);
      });
    };
    void deadline.then(() => {
      // The status line decides; a body still trickling in is cut where it is.
      if (statusCode !== undefined) answered();
      else finish({ ok: false, error: timeoutError(req.timeoutMs), response: '' });
    });
    // Connections are reused only for this scheme, host, port and these checked addresses.
    const pooled = req.pool?.agentFor(scheme, host, port, addresses);
    if (pooled && !wouldConnect(pooled)) send(pooled);
    else connectThenSend(pooled ?? oneUseAgent(scheme));
  });
}
