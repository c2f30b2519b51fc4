// Audit actors of CONTRACT.md "Access": a team member (kind merchant, with email and role), an API
// key (kind api_key, the key id) or the operator (kind admin).
import type { FastifyRequest } from 'fastify';
import { requestOrigin, type Actor } from '../audit/index.ts';
import type { ApiKeyAuth, UserAuth } from './auth-context.ts';

export function memberActor(req: FastifyRequest, auth: UserAuth): Actor {
  return { kind: 'merchant', id: auth.userId, merchant_id: auth.merchantId, email: auth.email, role: auth.role, ...requestOrigin(req) };
}

export function adminActor(req: FastifyRequest): Actor {
  return { kind: 'admin', id: 'admin', ...requestOrigin(req) };
}

export function keyActor(req: FastifyRequest, auth: ApiKeyAuth): Actor {
  return { kind: 'api_key', id: auth.keyId, merchant_id: auth.merchantId, ...requestOrigin(req) };
}

/** The actor of a route open to both API keys and team members. */
export const actorOf = (req: FastifyRequest, auth: ApiKeyAuth | UserAuth): Actor =>
  auth.kind === 'api_key' ? keyActor(req, auth) : memberActor(req, auth);
