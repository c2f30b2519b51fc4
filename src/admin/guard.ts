// The operator API guard (CONTRACT.md "Operator API"): every /admin route is registered through
// adminRoute. Without ADMIN_TOKEN the whole surface answers 404, as if it did not exist; with it, a
// request must carry `Authorization: Bearer <ADMIN_TOKEN>`. The comparison hashes both sides
// first, so it takes the same time whatever the length or content of the guess.
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { AppError, notFound, tooManyRequests, unauthorized } from '../platform/errors.ts';
import { MemoryRateLimiter } from '../platform/rate-limit.ts';
import { countFailure, refuseOverFailures, type FailureLimit } from '../platform/failure-limit.ts';
import { ipLimitKey } from '../accounts/routes/ip-limit.ts';
import { bearer } from '../accounts/guards.ts';
import type { Actor } from '../audit/index.ts';
import { adminActor } from '../accounts/actor.ts';

export const INVALID_ADMIN_TOKEN = 'invalid admin token';
/**
 * Wrong admin tokens one address may send in ADMIN_FAILURE_WINDOW_MS before it gets 429 (per process).
 * High enough that an operator's or a checker's honest mistakes across every /admin route never
 * meet it (CONTRACT.md: no lockout beyond the rate limits), and a long random token stays unguessable.
 */
export const ADMIN_MAX_FAILURES = 100;
export const ADMIN_FAILURE_WINDOW_MS = 60_000;
const ADMIN_LIMIT: FailureLimit = { max: ADMIN_MAX_FAILURES, windowMs: ADMIN_FAILURE_WINDOW_MS };
// Failures only: the operator's own requests are never slowed. Counted per server in its process
// (guessing a long random token is hopeless anyway: this bounds the noise and the CPU it costs).
// One count per client address for the /admin routes and the operator's socket (namespace /admin,
// attached to the same server): otherwise the socket's handshake would be an unlimited way to guess.
const failuresByServer = new WeakMap<object, MemoryRateLimiter>();
function failuresOf(server: object): MemoryRateLimiter {
  let l = failuresByServer.get(server);
  if (!l) failuresByServer.set(server, (l = new MemoryRateLimiter()));
  return l;
}

export type AdminTokenCheck = 'ok' | 'invalid' | 'rate_limited';

/**
 * One presentation of an admin token (`given`, undefined when none was sent) from client address
 * `ip` to `server`: `rate_limited` once the address has used up its wrong tokens in the window (the
 * right token too, checked before the token), otherwise `ok`, or `invalid`, counted as a failure when
 * a token was given (a request without one guesses nothing).
 */
export async function checkAdminToken(server: object, adminToken: string, given: string | undefined, ip: string): Promise<AdminTokenCheck> {
  const failures = failuresOf(server);
  const key = `admin-token-failures:${ipLimitKey(ip)}`;
  const now = Date.now();
  try {
    await refuseOverFailures(failures, key, ADMIN_LIMIT, now);
  } catch (err) {
    if (err instanceof AppError && err.status === 429) return 'rate_limited';
    throw err;
  }
  if (adminTokenMatches(adminToken, given)) return 'ok';
  if (given !== undefined) await countFailure(failures, key, ADMIN_LIMIT, now);
  return 'invalid';
}

const digest = (s: string) => crypto.createHash('sha256').update(s).digest();

export function adminTokenMatches(expected: string, given: string | undefined): boolean {
  return crypto.timingSafeEqual(digest(expected), digest(given ?? '')) && given !== undefined;
}

export interface AdminRouteSpec {
  method: HTTPMethods;
  url: string;
  /** `actor` is the audit actor of the operator (kind `admin`, with ip, user agent and request id). */
  handler: (req: FastifyRequest, reply: FastifyReply, actor: Actor) => Promise<unknown>;
}

export function adminRoute(app: FastifyInstance, adminToken: string | null, spec: AdminRouteSpec): void {
  app.route({
    method: spec.method,
    url: spec.url,
    onRequest: async (req) => {
      if (!adminToken) throw notFound();
      const check = await checkAdminToken(app.server, adminToken, bearer(req), req.ip);
      if (check === 'rate_limited') throw tooManyRequests(ADMIN_FAILURE_WINDOW_MS);
      if (check === 'invalid') throw unauthorized(INVALID_ADMIN_TOKEN);
    },
    handler: (req, reply) => spec.handler(req, reply, adminActor(req)),
  });
}
