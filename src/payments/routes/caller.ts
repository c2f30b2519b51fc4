// Small helpers shared by the payments routes: the /v1 caller, the `mode` query, path params.
import type { FastifyRequest } from 'fastify';
import type { ApiKeyAuth } from '../../accounts/index.ts';
import { requestOrigin } from '../../audit/index.ts';
import type { KeyCaller } from '../service.ts';

export function keyCaller(req: FastifyRequest, auth: ApiKeyAuth): KeyCaller {
  return {
    merchant: auth.merchant, livemode: auth.livemode, storeId: auth.storeId,
    actor: { kind: 'api_key', id: auth.keyId, ...requestOrigin(req) },
  };
}

/** Dashboard routes read live data unless `?mode=test` (spec part 1 Modes). */
export const livemodeOf = (req: FastifyRequest): boolean => (req.query as Record<string, unknown> | undefined)?.mode !== 'test';

export const query = (req: FastifyRequest): Record<string, unknown> => (req.query ?? {}) as Record<string, unknown>;
export const param = (req: FastifyRequest, name: string): string => String((req.params as Record<string, string>)[name] ?? '');
