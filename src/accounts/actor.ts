// Audit actors of CONTRACT.md "Access": a team member (kind merchant, with email and role) or the operator.
import type { FastifyRequest } from 'fastify';
import { requestOrigin, type Actor } from '../audit/index.ts';
import type { UserAuth } from './auth-context.ts';

export function memberActor(req: FastifyRequest, auth: UserAuth): Actor {
  return { kind: 'merchant', id: auth.userId, merchant_id: auth.merchantId, email: auth.email, role: auth.role, ...requestOrigin(req) };
}

export function adminActor(req: FastifyRequest): Actor {
  return { kind: 'admin', id: 'admin', ...requestOrigin(req) };
}
