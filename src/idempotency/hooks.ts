// Idempotency-Key on every POST of /v1 and /merchant (CONTRACT "Developer platform"). Two hooks,
// given only to those routes as they are registered (so GET /checkout and every other route pays
// nothing for them): preHandler (after the route's credential check and the body) claims the key
// or answers from the store; onSend records the first answer before it leaves, so a client that
// retries the moment it hears back is replayed, never told 409.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import { AppError, badRequest, conflict } from '../platform/errors.ts';
import { livemodeOf } from '../platform/http/index.ts';
import { RequestFingerprints } from './fingerprint.ts';
import type { IdempotencyStore, KeyScope } from './store.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_LENGTH = 'Idempotency-Key must be 1 to 255 characters';
export const IDEMPOTENCY_KEY_REUSED = 'this Idempotency-Key was used with a different request';
export const IDEMPOTENCY_KEY_IN_PROGRESS = 'a request with this Idempotency-Key is in progress';
const MAX_KEY_LENGTH = 255;

const COVERED = /^\/(v1|merchant)(\/|\?|$)/;

const claimedScope = new WeakMap<FastifyRequest, KeyScope>();

/** The key of a covered request, validated; undefined when the request is not covered or has none. */
function keyOf(req: FastifyRequest): string | undefined {
  if (req.method !== 'POST' || !COVERED.test(req.url)) return undefined;
  const raw = req.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw.join(', ') : raw;
  if (key.length < 1 || key.length > MAX_KEY_LENGTH) throw badRequest(IDEMPOTENCY_KEY_LENGTH);
  return key;
}

/** Whether a route may take an Idempotency-Key: a POST under /v1 or /merchant. */
export function coveredRoute(route: Pick<RouteOptions, 'method' | 'url'>): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.includes('POST') && COVERED.test(route.url);
}

/** Adds a hook to a route's own list of that hook (after any it already has). */
function withHook<T>(existing: T | T[] | undefined, hook: T): T[] {
  return existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
}

/** Must run before the routes are registered: it hooks each covered route as it is added. */
export function installIdempotency(app: FastifyInstance, store: IdempotencyStore, fingerprints: RequestFingerprints): void {
  const preHandler = async (req: FastifyRequest, reply: FastifyReply) => {
    const key = keyOf(req);
    // Routes without a credential (sign-up, sign-in, refresh, password reset) have no merchant to
    // keep a key under, and their answers carry fresh secrets: the key is checked, never stored.
    if (key === undefined || !req.auth) return;
    const livemode = req.auth.kind === 'api_key' ? req.auth.livemode : livemodeOf(req);
    const scope: KeyScope = { merchantId: req.auth.merchantId, livemode, key };
    const claim = await store.claim(scope, fingerprints.of(req.method, req.url, req.body, req.auth.kind === 'api_key' ? req.auth.storeId : null));
    if (claim.kind === 'claimed') {
      claimedScope.set(req, scope);
      return;
    }
    if (claim.kind === 'mismatch') throw new AppError(422, IDEMPOTENCY_KEY_REUSED);
    if (claim.kind === 'running') throw conflict(IDEMPOTENCY_KEY_IN_PROGRESS);
    reply.code(claim.answer.statusCode).header(REPLAYED_HEADER, 'true');
    if (claim.answer.contentType) reply.header('content-type', claim.answer.contentType);
    return reply.send(claim.answer.body);
  };

  const onSend = async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const scope = claimedScope.get(req);
    if (!scope) return payload;
    claimedScope.delete(req);
    // A failure on our side is not an answer worth keeping for a day, nor a 429 (the request was
    // not run, only put off: a password re-check over its limit): the key is free to retry.
    if (reply.statusCode >= 500 || reply.statusCode === 429 || (typeof payload !== 'string' && !Buffer.isBuffer(payload) && payload != null)) {
      await store.release(scope);
      return payload;
    }
    const contentType = reply.getHeader('content-type');
    try {
      await store.complete(scope, {
        statusCode: reply.statusCode,
        contentType: typeof contentType === 'string' ? contentType : null,
        body: payload == null ? '' : String(payload),
      });
    } catch (err) {
      // The request did its work: its answer goes out. The key stays held until its lease ends.
      req.log.error({ err }, 'could not store the idempotent answer');
    }
    return payload;
  };

  app.addHook('onRoute', (route) => {
    if (!coveredRoute(route)) return;
    route.preHandler = withHook(route.preHandler, preHandler as preHandlerHookHandler);
    route.onSend = withHook(route.onSend, onSend as onSendHookHandler);
  });
}
