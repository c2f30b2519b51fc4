// Small helpers shared by the payments routes: the /v1 caller and the `mode` query.
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
