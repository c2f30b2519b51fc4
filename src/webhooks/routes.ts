// HTTP edge of webhooks (spec 4.1 webhook routes, 4.4 "Webhook and deliveries", CONTRACT /admin):
// validate, call the service, shape the answer.
import type { FastifyInstance } from 'fastify';
import { actorOf, apiRoute, dashboardRoute, ANY_ROLE, OWNER, OWNER_DEVELOPER, bodyObject, type AccountsService, type ApiKeyAuth } from '../accounts/index.ts';
import { adminRoute } from '../admin/index.ts';
import { forbidden } from '../platform/errors.ts';
import { listParams, LIST_DEFAULT } from '../platform/list-params.ts';
import { deliveryJson } from './delivery-json.ts';
import { parseNote, parseStatusFilter, REDELIVERY_QUEUED } from './delivery-store.ts';
import { webhookJson } from './endpoints.ts';
import type { WebhooksService } from './service.ts';
import { idOf, livemodeOf, queryOf } from '../platform/http/index.ts';

export const STOREFRONT_CANNOT_CHANGE = "a storefront's key cannot change the account's webhook: set webhook_url on its payments instead";

function denyStorefront(auth: ApiKeyAuth): void {
  if (auth.storeId !== null) throw forbidden(STOREFRONT_CANNOT_CHANGE);
}

export function registerWebhookRoutes(app: FastifyInstance, services: { accounts: AccountsService; webhooks: WebhooksService }): void {
  const { authn } = services.accounts;
  const wh = services.webhooks;
  const { endpoints } = wh;

  // /v1: the key decides the mode.
  apiRoute(app, authn, {
    method: 'GET', url: '/v1/webhook', readOnlyAllowed: true,
    handler: async (_req, _reply, auth) => ({ webhook: webhookJson(await endpoints.get(auth.merchantId, auth.livemode)) }),
  });
  apiRoute(app, authn, {
    method: 'PUT', url: '/v1/webhook', refuse: denyStorefront,
    handler: async (req, _reply, auth) => {
      const w = await endpoints.setUrl(auth.merchantId, auth.livemode, bodyObject(req.body).url, actorOf(req, auth));
      return { webhook: webhookJson(w) };
    },
  });
  apiRoute(app, authn, {
    method: 'DELETE', url: '/v1/webhook', refuse: denyStorefront,
    handler: async (req, _reply, auth) => ({ webhook: webhookJson(await endpoints.removeUrl(auth.merchantId, auth.livemode, actorOf(req, auth))) }),
  });
  apiRoute(app, authn, {
    method: 'POST', url: '/v1/webhook/test',
    handler: async (_req, reply, auth) => reply.code(202).send({ delivery: deliveryJson(await wh.testPing(auth.merchantId, auth.livemode)) }),
  });

  // /merchant: the dashboard picks the mode with ?mode=test.
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/webhook', roles: OWNER_DEVELOPER,
    handler: async (req, _reply, auth) => ({ webhook: webhookJson(await endpoints.get(auth.merchantId, livemodeOf(req))) }),
  });
  dashboardRoute(app, authn, {
    method: 'PUT', url: '/merchant/webhook', roles: OWNER_DEVELOPER,
    handler: async (req, _reply, auth) => {
      const w = await endpoints.setUrl(auth.merchantId, livemodeOf(req), bodyObject(req.body).url, actorOf(req, auth));
      return { webhook: webhookJson(w) };
    },
  });
  dashboardRoute(app, authn, {
    method: 'DELETE', url: '/merchant/webhook', roles: OWNER_DEVELOPER,
    handler: async (req, _reply, auth) => ({ webhook: webhookJson(await endpoints.removeUrl(auth.merchantId, livemodeOf(req), actorOf(req, auth))) }),
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/webhook/test', roles: OWNER_DEVELOPER,
    handler: async (req, reply, auth) => reply.code(202).send({ delivery: deliveryJson(await wh.testPing(auth.merchantId, livemodeOf(req))) }),
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/webhook/roll-secret', roles: OWNER,
    handler: async (req, _reply, auth) => ({ webhook: webhookJson(await endpoints.rollSecret(auth.merchantId, livemodeOf(req), actorOf(req, auth))) }),
  });

  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/webhooks/deliveries', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => {
      const q = queryOf(req);
      const { limit } = listParams(q, LIST_DEFAULT);
      const before = q.before === undefined || q.before === '' ? undefined : String(q.before);
      const rows = await wh.list({ merchantId: auth.merchantId, livemode: livemodeOf(req), status: parseStatusFilter(q.status), limit, before });
      // Every list answers the limit and offset it applied (spec 4.4); this one has no offset paging
      // ("no paging beyond limit"; `before` is the cursor), so the offset applied is always 0.
      return { deliveries: rows.map((r) => deliveryJson(r)), limit, offset: 0 };
    },
  });
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/webhooks/deliveries/:id', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => ({ delivery: deliveryJson(await wh.get(auth.merchantId, idOf(req)), { history: true }) }),
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/webhooks/deliveries/:id/redeliver', roles: OWNER_DEVELOPER,
    handler: async (req, reply, auth) => {
      await wh.redeliver(auth.merchantId, idOf(req), actorOf(req, auth));
      return reply.code(202).send({ message: REDELIVERY_QUEUED });
    },
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/webhooks/deliveries/:id/resolve', roles: OWNER_DEVELOPER,
    handler: async (req, _reply, auth) => {
      const note = parseNote(bodyObject(req.body).note);
      const row = await wh.resolve(auth.merchantId, idOf(req), actorOf(req, auth), note);
      return { delivery: deliveryJson(row, { history: true }) };
    },
  });

  adminRoute(app, wh.platform.config.adminToken, {
    method: 'GET', url: '/admin/deliveries',
    handler: async (req) => {
      const q = queryOf(req);
      const { limit, offset } = listParams(q, LIST_DEFAULT);
      const page = await wh.forOperator(parseStatusFilter(q.status), limit, offset);
      return { deliveries: page.rows.map((r) => deliveryJson(r)), total: page.total, limit, offset };
    },
  });
}
