// The operator API guard (CONTRACT.md "Operator API"): every /admin route is registered through
// adminRoute. Without ADMIN_TOKEN the whole surface answers 404, as if it did not exist; with it, a
// request must carry `Authorization: Bearer <ADMIN_TOKEN>`. The comparison hashes both sides
// first, so it takes the same time whatever the length or content of the guess.
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { notFound, unauthorized } from '../platform/errors.ts';
import { MemoryRateLimiter } from '../platform/rate-limit.ts';
import { countFailure, refuseOverFailures, type FailureLimit } from '../platform/failure-limit.ts';
import { ipLimitKey } from '../accounts/routes/ip-limit.ts';
import { bearer } from '../accounts/guards.ts';
import type { Actor } from '../audit/index.ts';
import { adminActor } from '../accounts/actor.ts';

export const INVALID_ADMIN_TOKEN = 'invalid admin token';
/** Wrong admin tokens one address may send in ADMIN_FAILURE_WINDOW_MS before it gets 429 (per process). */
export const ADMIN_MAX_FAILURES = 20;
export const ADMIN_FAILURE_WINDOW_MS = 60_000;
const ADMIN_LIMIT: FailureLimit = { max: ADMIN_MAX_FAILURES, windowMs: ADMIN_FAILURE_WINDOW_MS };
// Failures only: the operator's own requests are never slowed. Counted per server in its process
// (guessing a long random token is hopeless anyway: this bounds the noise and the CPU it costs).
const failuresByServer = new WeakMap<object, MemoryRateLimiter>();
function failuresOf(app: FastifyInstance): MemoryRateLimiter {
  let l = failuresByServer.get(app.server);
  if (!l) failuresByServer.set(app.server, (l = new MemoryRateLimiter()));
  return l;
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
  const adminFailures = failuresOf(app);
  app.route({
    method: spec.method,
    url: spec.url,
    onRequest: async (req) => {
      if (!adminToken) throw notFound();
      const key = `admin-token-failures:${ipLimitKey(req.ip)}`;
      const now = Date.now();
      await refuseOverFailures(adminFailures, key, ADMIN_LIMIT, now);
      if (!adminTokenMatches(adminToken, bearer(req))) {
        await countFailure(adminFailures, key, ADMIN_LIMIT, now);
        throw unauthorized(INVALID_ADMIN_TOKEN);
      }
    },
    handler: (req, reply) => spec.handler(req, reply, adminActor(req)),
  });
}
