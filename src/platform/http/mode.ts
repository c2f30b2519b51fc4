// The mode of a dashboard (or public /tokens) request: `?mode=test` means test; anything else,
// or nothing, means live (spec 1 "Modes", 4.4 API keys).
import type { FastifyRequest } from 'fastify';

export const isLiveQuery = (query: unknown): boolean => (query as { mode?: unknown } | undefined)?.mode !== 'test';
export const livemodeOf = (req: FastifyRequest): boolean => isLiveQuery(req.query);
