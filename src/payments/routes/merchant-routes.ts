// Dashboard payments routes (spec 4.4 "Payments and dashboard", tokens listing): any role reads,
// owners, developers and finance simulate.
import type { FastifyInstance } from 'fastify';
import { ANY_ROLE, SIMULATORS, bodyObject, dashboardRoute, memberActor, type AccountsService } from '../../accounts/index.ts';
import { badRequest } from '../../platform/errors.ts';
import type { PaymentsService } from '../service.ts';
import { livemodeOf, paramOf, queryOf } from '../../platform/http/index.ts';

export const TEST_PAYMENTS_ONLY = 'only test payments can be made in the dashboard: add ?mode=test';

export function registerMerchantPaymentRoutes(app: FastifyInstance, accounts: AccountsService, payments: PaymentsService): void {
  const authn = accounts.authn;
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/tokens', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => ({ tokens: await payments.merchantTokens(auth.merchant, livemodeOf(req)) }),
  });
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/dashboard', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => payments.dashboard(auth.merchantId, livemodeOf(req)),
  });
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/dashboard/series', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => payments.series(auth.merchantId, livemodeOf(req), queryOf(req).days),
  });
  // A test payment made by a team member (README "Dashboard additions"): the /v1 body, test mode only.
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/payments', roles: SIMULATORS,
    handler: async (req, reply, auth) => {
      if (livemodeOf(req)) throw badRequest(TEST_PAYMENTS_ONLY);
      const caller = { merchant: auth.merchant, livemode: false, storeId: null, actor: memberActor(req, auth) };
      const r = await payments.create(caller, bodyObject(req.body));
      return reply.code(r.created ? 201 : 200).send(r.payment);
    },
  });
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/payments', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => payments.listForMerchant(auth.merchantId, livemodeOf(req), queryOf(req)),
  });
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/payments/:id', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => payments.getForMerchant(auth.merchantId, paramOf(req, 'id')),
  });
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/payments/:id/events', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => payments.events(auth.merchantId, paramOf(req, 'id'), queryOf(req)),
  });
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/payments/:id/trail', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => ({ trail: await payments.trail(auth.merchantId, paramOf(req, 'id')) }),
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/payments/:id/simulate', roles: SIMULATORS,
    handler: async (req, _reply, auth) => payments.simulateByMerchant(auth.merchantId, paramOf(req, 'id'), bodyObject(req.body).outcome),
  });
}
