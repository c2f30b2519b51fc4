// /merchant/customers (CONTRACT.md "Customers"): anyone reads; owners, developers and finance make
// and change customers.
import type { FastifyInstance } from 'fastify';
import { ANY_ROLE, SIMULATORS, bodyObject, dashboardRoute, memberActor, type AccountsService } from '../accounts/index.ts';
import { idOf, livemodeOf, queryOf } from '../platform/http/index.ts';
import type { CustomersService } from './service.ts';
import { customerJson } from './json.ts';

/** O, D, F: the roles that simulate payments are the ones that keep customers. */
const CUSTOMER_EDITORS = SIMULATORS;

export function registerCustomerRoutes(app: FastifyInstance, accounts: AccountsService, svc: CustomersService): void {
  const { authn } = accounts;
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/customers', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => svc.list(auth.merchantId, livemodeOf(req), queryOf(req)),
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/customers', roles: CUSTOMER_EDITORS,
    handler: async (req, reply, auth) => {
      const row = await svc.create(auth.merchantId, livemodeOf(req), bodyObject(req.body), memberActor(req, auth));
      return reply.code(201).send({ customer: customerJson(row) });
    },
  });
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/customers/:id', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => ({ customer: await svc.get(auth.merchantId, idOf(req)) }),
  });
  dashboardRoute(app, authn, {
    method: 'PATCH', url: '/merchant/customers/:id', roles: CUSTOMER_EDITORS,
    handler: async (req, _reply, auth) => ({ customer: customerJson(await svc.update(auth.merchantId, idOf(req), bodyObject(req.body), memberActor(req, auth))) }),
  });
}
