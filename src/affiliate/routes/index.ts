// Every route of the referral program, registered in one call from src/routes.ts.
import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../../accounts/index.ts';
import type { AffiliateService } from '../service.ts';
import { registerAffiliateMerchantRoutes } from './merchant-routes.ts';
import { registerAffiliateAdminRoutes } from './admin-routes.ts';
import { registerClickRoute } from './click-route.ts';

export async function registerAffiliateRoutes(app: FastifyInstance, accounts: AccountsService, affiliate: AffiliateService): Promise<void> {
  registerAffiliateMerchantRoutes(app, accounts, affiliate);
  registerAffiliateAdminRoutes(app, affiliate);
  await registerClickRoute(app, accounts, affiliate);
  app.addHook('onClose', async () => { await affiliate.close(); });
}
