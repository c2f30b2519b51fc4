// /merchant/support (CONTRACT.md "Support chat"): every role reads and writes; a message is edited
// by its author and deleted by its author or an owner (checked by the service).
import type { FastifyInstance } from 'fastify';
import { ANY_ROLE, bodyObject, dashboardRoute, type AccountsService } from '../../accounts/index.ts';
import type { SupportService } from '../service.ts';
import { messageJson } from '../messages.ts';
import { idOf, queryOf } from '../../platform/http/index.ts';

export function registerSupportMerchantRoutes(app: FastifyInstance, accounts: AccountsService, support: SupportService): void {
  const { authn } = accounts;
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/support/messages', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => support.messages(auth.merchantId, queryOf(req)),
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/support/messages', roles: ANY_ROLE,
    handler: async (req, reply, auth) => reply.code(201).send({ message: messageJson(await support.post(auth, bodyObject(req.body).body)) }),
  });
  dashboardRoute(app, authn, {
    method: 'PATCH', url: '/merchant/support/messages/:id', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => ({ message: messageJson(await support.edit(auth, idOf(req), bodyObject(req.body).body)) }),
  });
  dashboardRoute(app, authn, {
    method: 'DELETE', url: '/merchant/support/messages/:id', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => ({ message: messageJson(await support.remove(auth, idOf(req))) }),
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/support/read', roles: ANY_ROLE,
    handler: async (_req, _reply, auth) => support.read(auth.merchantId),
  });
}
