// The operator API guard (CONTRACT.md "Operator API"): every /admin route is registered through
// adminRoute. Without ADMIN_TOKEN the whole surface answers 404, as if it did not exist; with it, a
// request must carry `Authorization: Bearer <ADMIN_TOKEN>`. The comparison hashes both sides
// first, so it takes the same time whatever the length or content of the guess.
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { notFound, unauthorized } from '../platform/errors.ts';
import { bearer } from '../accounts/guards.ts';
import type { Actor } from '../audit/index.ts';
import { adminActor } from '../accounts/actor.ts';

export const INVALID_ADMIN_TOKEN = 'invalid admin token';

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
      if (!adminTokenMatches(adminToken, bearer(req))) throw unauthorized(INVALID_ADMIN_TOKEN);
    },
    handler: (req, reply) => spec.handler(req, reply, adminActor(req)),
  });
}
