// GET /merchant/notifications and POST /merchant/notifications/read (CONTRACT.md "Notifications"; any role).
import type { FastifyInstance } from 'fastify';
import { ANY_ROLE, bodyObject, dashboardRoute, type AccountsService, type UserAuth } from '../accounts/index.ts';
import { queryOf } from '../platform/http/index.ts';
import { listNotifications, markRead, type Reader } from './reads.ts';

const readerOf = (auth: UserAuth): Reader => ({ merchantId: auth.merchantId, userId: auth.userId, role: auth.role });

export function registerNotificationRoutes(app: FastifyInstance, accounts: AccountsService): void {
  const { clock, db } = accounts.platform;
  dashboardRoute(app, accounts.authn, {
    method: 'GET', url: '/merchant/notifications', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => listNotifications(db, readerOf(auth), queryOf(req)),
  });
  dashboardRoute(app, accounts.authn, {
    method: 'POST', url: '/merchant/notifications/read', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => markRead(db, readerOf(auth), bodyObject(req.body), clock.now()),
  });
}
