// GET and PATCH /merchant/me/email-notifications: the signed-in member's own choice of what is
// e-mailed to them (any role; README "E-mail").
import type { FastifyInstance } from 'fastify';
import { ANY_ROLE, bodyObject, dashboardRoute, type AccountsService } from '../accounts/index.ts';
import { preferencesOf, updatePreferences } from './preferences.ts';

export function registerMailRoutes(app: FastifyInstance, accounts: AccountsService): void {
  const { clock, db } = accounts.platform;
  dashboardRoute(app, accounts.authn, {
    method: 'GET', url: '/merchant/me/email-notifications', roles: ANY_ROLE,
    handler: async (_req, _reply, auth) => ({ email_notifications: await preferencesOf(db.orm, auth.userId, auth.role) }),
  });
  dashboardRoute(app, accounts.authn, {
    method: 'PATCH', url: '/merchant/me/email-notifications', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => ({
      email_notifications: await updatePreferences(db.orm, auth.userId, auth.role, bodyObject(req.body), clock.now()),
    }),
  });
}
