// Small pieces every settlement route uses: the mode of a dashboard request and the team member
// as an audit actor.
import type { FastifyRequest } from 'fastify';

export type Query = Record<string, unknown>;

export const queryOf = (req: FastifyRequest): Query => (req.query ?? {}) as Query;

/** Dashboard routes read live data unless `?mode=test`. */
export { livemodeOf } from '../../platform/http/index.ts';

export { memberActor } from '../../accounts/index.ts';

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
