// API keys from the dashboard (spec 4.4 "API keys"; owners and developers).
import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../service.ts';
import { dashboardRoute } from '../guards.ts';
import { OWNER_DEVELOPER } from '../roles.ts';
import { apiKeyJson } from '../api-keys.ts';
import { bodyObject } from '../validate.ts';
import { memberActor } from '../actor.ts';
import { createKey, isTestMode, KEY_REVOKED, listKeys, revokeKey } from '../key-management.ts';
import { idOf } from '../../platform/http/index.ts';

export function registerApiKeyRoutes(app: FastifyInstance, accounts: AccountsService): void {
  const { clock, db } = accounts.platform;
  const authn = accounts.authn;

  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/api-keys', roles: OWNER_DEVELOPER,
    handler: async (req, reply, auth) => {
      const k = await createKey(db, auth.merchantId, !isTestMode(req.query), bodyObject(req.body), memberActor(req, auth), clock.now());
      return reply.code(201).send({ api_key: apiKeyJson(k.row), secret: k.secret });
    },
  });
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/api-keys', roles: OWNER_DEVELOPER,
    handler: async (req, _reply, auth) => ({ api_keys: (await listKeys(db, auth.merchantId, !isTestMode(req.query))).map(apiKeyJson) }),
  });
  dashboardRoute(app, authn, {
    method: 'DELETE', url: '/merchant/api-keys/:id', roles: OWNER_DEVELOPER,
    handler: async (req, _reply, auth) => {
      const key = await revokeKey(db, auth.merchantId, idOf(req), memberActor(req, auth), clock.now());
      authn.forgetKey(key.secretHash);
      return { message: KEY_REVOKED };
    },
  });
}
