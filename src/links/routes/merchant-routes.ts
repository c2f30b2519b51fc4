// /merchant/links (CONTRACT.md "Payment links"): anyone reads; owners and developers make and change links.
import type { FastifyInstance } from 'fastify';
import { ANY_ROLE, OWNER_DEVELOPER, bodyObject, dashboardRoute, memberActor, type AccountsService } from '../../accounts/index.ts';
import { idOf, livemodeOf, queryOf } from '../../platform/http/index.ts';
import type { LinksService } from '../service.ts';

export function registerLinkMerchantRoutes(app: FastifyInstance, accounts: AccountsService, links: LinksService): void {
  const { authn } = accounts;
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/links', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => links.list(auth.merchantId, livemodeOf(req), queryOf(req)),
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/links', roles: OWNER_DEVELOPER,
    handler: async (req, reply, auth) => {
      const row = await links.create(auth.merchant, livemodeOf(req), bodyObject(req.body), memberActor(req, auth));
      return reply.code(201).send({ link: links.json(row) });
    },
  });
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/links/:id', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => ({ link: links.json(await links.get(auth.merchantId, idOf(req))) }),
  });
  dashboardRoute(app, authn, {
    method: 'PATCH', url: '/merchant/links/:id', roles: OWNER_DEVELOPER,
    handler: async (req, _reply, auth) => ({ link: links.json(await links.update(auth.merchantId, idOf(req), bodyObject(req.body), memberActor(req, auth))) }),
  });
}
