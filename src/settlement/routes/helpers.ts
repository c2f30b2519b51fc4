// Small pieces every settlement route uses: the mode of a dashboard request and the team member
// as an audit actor.
import type { FastifyRequest } from 'fastify';
import type { UserAuth } from '../../accounts/index.ts';
import { requestOrigin, type Actor } from '../../audit/index.ts';

export type Query = Record<string, unknown>;

export const queryOf = (req: FastifyRequest): Query => (req.query ?? {}) as Query;

/** Dashboard routes read live data unless `?mode=test`. */
export const livemodeOf = (req: FastifyRequest): boolean => queryOf(req).mode !== 'test';

export function memberActor(req: FastifyRequest, auth: UserAuth): Actor {
  return { kind: 'merchant', id: auth.userId, merchant_id: auth.merchantId, email: auth.email, role: auth.role, ...requestOrigin(req) };
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
