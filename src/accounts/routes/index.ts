// Every accounts route (issue 3), registered in one call from src/routes.ts.
import type { FastifyInstance } from 'fastify';
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

/** Also closes the shared rate limiter's connection when the app closes. */
export function registerAccountRoutes(app: FastifyInstance, accounts: AccountsService): void {
  registerSignupRoutes(app, accounts);
  registerSessionRoutes(app, accounts);
  registerMeRoutes(app, accounts);
  registerTeamRoutes(app, accounts);
  registerApiKeyRoutes(app, accounts);
  registerStoreRoutes(app, accounts);
  registerSettingsRoutes(app, accounts);
  registerAuditRoutes(app, accounts);
  registerAdminMerchantRoutes(app, accounts);
  app.addHook('onClose', async () => { await accounts.close(); });
}
