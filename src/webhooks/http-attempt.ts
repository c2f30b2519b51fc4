// One delivery attempt (spec 6.1): re-check the URL, sign afresh, POST the stored body to exactly the
// addresses just checked, and report what happened. Never follows a redirect, never reads more of
// the answer than the 500 characters a history entry keeps, never waits longer than the timeout.
import http from 'node:http';
import https from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { systemClock, type Clock } from '../platform/clock.ts';
import { ipFamily } from './ip-ranges.ts';
import { signatureHeader, unixSeconds } from './signing.ts';
import { bareHost, checkWebhookUrl, type ResolvedAddress, type Resolver } from './url-policy.ts';
import { describeAttemptError, timeoutError } from './attempt-errors.ts';
import { pinnedLookup, type ConnectionPool } from './connection-pool.ts';

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
  /** The `t` of this attempt's signature (the second the attempt was made when refused before sending). */
  signedAt: number;
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
    const signedAt = unixSeconds(clock.now());
    if (check === 'timeout') return { ok: false, error: timeoutError(req.timeoutMs), response: '', millis: millis(), signedAt };
    if (!check.ok) return { ok: false, error: check.error, response: '', millis: millis(), signedAt };
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
  const https_ = target.protocol === 'https:';
  const port = target.port === '' ? (https_ ? 443 : 80) : Number(target.port);
  const options: https.RequestOptions = {
    method: 'POST',
    hostname: host,
    port,
    path: `${target.pathname}${target.search}`,
    lookup: pinnedLookup(addresses),
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
    let request: http.ClientRequest;
    let answer: http.IncomingMessage | undefined;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      // A complete exchange leaves a kept-alive connection to its agent; anything else closes it.
      if (!outcome.ok || !answer?.complete) request.destroy();
      resolve(outcome);
    };
    const answered = () => {
      const code = statusCode!;
      const ok = code >= 200 && code < 300;
      finish(ok ? { ok, statusCode: code, response: text.value } : { ok, statusCode: code, error: answeredError(code), response: text.value });
    };
    const send = (agent: http.Agent | false) => {
      request = (https_ ? https : http).request({ ...options, agent }, (res) => {
        answer = res;
        statusCode = res.statusCode ?? 0;
        res.on('data', (chunk: Buffer) => { if (text.add(chunk)) answered(); });
        res.on('end', answered);
        res.on('error', answered);
        res.on('close', answered);
      });
      const sent = request;
      sent.on('error', (err: NodeJS.ErrnoException) => {
        if (settled || sent !== request) return;
        if (statusCode !== undefined) answered();
        else if (agent !== false && sent.reusedSocket && STALE_CONNECTION.has(err.code ?? '')) send(false);
        else finish({ ok: false, error: describeAttemptError(err), response: '' });
      });
      sent.end(body, 'utf8');
    };
    void deadline.then(() => {
      // The status line decides; a body still trickling in is cut where it is.
      if (statusCode !== undefined) answered();
      else finish({ ok: false, error: timeoutError(req.timeoutMs), response: '' });
    });
    // Connections are reused only for this scheme, host, port and these checked addresses.
    send(req.pool?.agentFor(https_ ? 'https:' : 'http:', host, port, addresses) ?? false);
  });
}
