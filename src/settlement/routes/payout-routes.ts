// Merchant payouts (spec 4.4 Payouts; body and answers documented in README): live only, read by
// any role, requested and cancelled by owners and finance. API keys never reach these routes.
import type { FastifyInstance } from 'fastify';
import { ANY_ROLE, OWNER_FINANCE, bodyObject, dashboardRoute, type AccountsService } from '../../accounts/index.ts';
import { listParams } from '../../platform/list-params.ts';
import type { SettlementService } from '../service.ts';
import { payoutJson } from '../json.ts';
import { idOf, memberActor, queryOf } from './helpers.ts';

export function registerPayoutRoutes(app: FastifyInstance, accounts: AccountsService, settlement: SettlementService): void {
  const { authn } = accounts;
  const svc = settlement.payouts;

  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/payouts', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => {
      const q = queryOf(req);
      const { limit, offset } = listParams(q);
      const page = await svc.list({ merchantId: auth.merchantId, status: q.status, token: q.token }, limit, offset);
      return { payouts: page.payouts.map(payoutJson), total: page.total, limit, offset };
    },
  });
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/payouts/quote', roles: OWNER_FINANCE,
    handler: async (req, _reply, auth) => ({ quote: await svc.quote(auth.merchantId, queryOf(req)) }),
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/payouts', roles: OWNER_FINANCE,
    handler: async (req, reply, auth) => {
      const row = await svc.request(auth.merchantId, auth.userId, memberActor(req, auth), bodyObject(req.body));
      return reply.code(201).send({ payout: payoutJson(row) });
    },
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/payouts/:id/cancel', roles: OWNER_FINANCE,
    handler: async (req, _reply, auth) => ({
      payout: payoutJson(await svc.cancel(auth.merchantId, auth.userId, memberActor(req, auth), idOf(req))),
    }),
  });
}
