// The operator API under /admin: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time.
// Without ADMIN_TOKEN configured the whole surface answers 404, as if it did not exist.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { notFound, unauthorized } from '../platform/errors.ts';
import { safeEqual } from '../platform/ids.ts';
import { requestOrigin, type Actor } from '../audit/index.ts';

export const INVALID_ADMIN_TOKEN = 'invalid admin token';

export function adminRoute(
  app: FastifyInstance,
  adminToken: string | null,
  spec: { method: HTTPMethods; url: string; handler: (req: FastifyRequest, reply: FastifyReply, actor: Actor) => Promise<unknown> },
): void {
  app.route({
    method: spec.method,
    url: spec.url,
    onRequest: async (req) => {
      if (!adminToken) throw notFound();
      const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      if (!m || !safeEqual(m[1], adminToken)) throw unauthorized(INVALID_ADMIN_TOKEN);
    },
    handler: (req, reply) => spec.handler(req, reply, { kind: 'admin', ...requestOrigin(req) }),
  });
}
