// Small helpers shared by the payments routes: the /v1 caller, the `mode` query, path params.
import type { FastifyRequest } from 'fastify';
import { keyActor, type ApiKeyAuth } from '../../accounts/index.ts';
import type { KeyCaller } from '../service.ts';

export function keyCaller(req: FastifyRequest, auth: ApiKeyAuth): KeyCaller {
  return {
    merchant: auth.merchant, livemode: auth.livemode, storeId: auth.storeId,
    actor: keyActor(req, auth),
  };
}

/** Dashboard routes read live data unless `?mode=test` (spec part 1 Modes). */
export { livemodeOf } from '../../platform/http/index.ts';

export const query = (req: FastifyRequest): Record<string, unknown> => (req.query ?? {}) as Record<string, unknown>;
export const param = (req: FastifyRequest, name: string): string => String((req.params as Record<string, string>)[name] ?? '');
