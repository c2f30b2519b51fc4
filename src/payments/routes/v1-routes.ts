// Payments API (/v1, API key; spec 4.1). Thin: validate the shape, call the service, answer.
import type { FastifyInstance } from 'fastify';
import { apiRoute, bodyObject, type AccountsService } from '../../accounts/index.ts';
import type { PaymentsService } from '../service.ts';
import { paramOf, queryOf } from '../../platform/http/index.ts';
import { keyCaller } from './caller.ts';

export function registerV1PaymentRoutes(app: FastifyInstance, accounts: AccountsService, payments: PaymentsService): void {
  const authn = accounts.authn;
  apiRoute(app, authn, {
    method: 'GET', url: '/v1/tokens', readOnlyAllowed: true,
    handler: async (req, _reply, auth) => ({ tokens: await payments.tokensForKey(keyCaller(req, auth), queryOf(req)) }),
  });
  apiRoute(app, authn, {
    method: 'POST', url: '/v1/payments',
    handler: async (req, reply, auth) => {
      const r = await payments.create(keyCaller(req, auth), bodyObject(req.body));
      return reply.code(r.created ? 201 : 200).send(r.payment);
    },
  });
  apiRoute(app, authn, {
    method: 'GET', url: '/v1/payments', readOnlyAllowed: true,
    handler: async (req, _reply, auth) => payments.listForKey(keyCaller(req, auth), queryOf(req)),
  });
  apiRoute(app, authn, {
    method: 'GET', url: '/v1/payments/:id', readOnlyAllowed: true,
    handler: async (req, _reply, auth) => payments.getForKey(keyCaller(req, auth), paramOf(req, 'id')),
  });
  apiRoute(app, authn, {
    method: 'POST', url: '/v1/payments/:id/token',
    handler: async (req, _reply, auth) => payments.chooseByKey(keyCaller(req, auth), paramOf(req, 'id'), bodyObject(req.body).token),
  });
  apiRoute(app, authn, {
    method: 'POST', url: '/v1/payments/:id/simulate',
    handler: async (req, _reply, auth) => payments.simulateByKey(keyCaller(req, auth), paramOf(req, 'id'), bodyObject(req.body).outcome),
  });
}
