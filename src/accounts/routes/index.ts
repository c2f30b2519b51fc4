// Every accounts route (issue 3), registered in one call from src/routes.ts.
import type { FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import type { AccountsService } from '../service.ts';
import { registerSignupRoutes } from './signup-routes.ts';
import { registerSessionRoutes } from './session-routes.ts';
import { registerMeRoutes } from './me-routes.ts';
import { registerTeamRoutes } from './team-routes.ts';
import { registerApiKeyRoutes } from './api-key-routes.ts';
import { registerStoreRoutes } from './store-routes.ts';
import { registerSettingsRoutes } from './settings-routes.ts';
import { registerAuditRoutes } from './audit-routes.ts';
import { registerAdminMerchantRoutes } from './admin-merchant-routes.ts';
import { registerInvitationAcceptRoute, registerInvitationRoutes } from './invitation-routes.ts';

/** Also closes the shared rate limiter's connection when the app closes. */
export function registerAccountRoutes(app: FastifyInstance, accounts: AccountsService): void {
  // The refresh cookie is read and written only by these routes: the cookie plugin's hooks stay off
  // every other request (the /v1 API and the checkout run without them).
  void app.register(async (withCookies) => {
    await withCookies.register(cookie);
    registerSignupRoutes(withCookies, accounts);
    registerSessionRoutes(withCookies, accounts);
    registerMeRoutes(withCookies, accounts);
    registerInvitationAcceptRoute(withCookies, accounts);
  });
  registerTeamRoutes(app, accounts);
  registerInvitationRoutes(app, accounts);
  registerApiKeyRoutes(app, accounts);
  registerStoreRoutes(app, accounts);
  registerSettingsRoutes(app, accounts);
  registerAuditRoutes(app, accounts);
  registerAdminMerchantRoutes(app, accounts);
  app.addHook('onClose', async () => { await accounts.close(); });
}
