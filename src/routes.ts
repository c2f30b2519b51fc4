// Every room's routes, registered on the app. A room exports one `register…Routes(app, services)`.
import type { FastifyInstance } from 'fastify';
import type { Services } from './services.ts';
import { registerAccountRoutes } from './accounts/index.ts';
import { registerPaymentRoutes } from './payments/index.ts';
import { registerSettlementRoutes } from './settlement/index.ts';
import { registerWebhookRoutes } from './webhooks/index.ts';
import { registerMarketRoutes } from './market/index.ts';
import { registerSupportRoutes } from './support/index.ts';
import { registerLinkRoutes } from './links/index.ts';
import { registerCustomerRoutes } from './customers/index.ts';
import { registerNotificationRoutes } from './notifications/index.ts';
import { registerAffiliateRoutes } from './affiliate/index.ts';
import { registerChainRoutes } from './chains/watch/index.ts';
import { registerMailAdminRoutes, registerMailRoutes } from './mail/index.ts';

export async function registerRoutes(app: FastifyInstance, services: Services): Promise<void> {
  registerAccountRoutes(app, services.accounts);
  await registerPaymentRoutes(app, services.accounts, services.payments, services.platform.clock);
  registerSettlementRoutes(app, services);
  registerWebhookRoutes(app, services);
  registerMarketRoutes(app, services.market, services.platform.config.adminToken);
  registerSupportRoutes(app, services.accounts, services.support);
  await registerLinkRoutes(app, services.accounts, services.links);
  registerCustomerRoutes(app, services.accounts, services.customers);
  registerNotificationRoutes(app, services.accounts);
  registerMailRoutes(app, services.accounts);
  registerMailAdminRoutes(app, services.platform.config.adminToken, services.mail);
  await registerAffiliateRoutes(app, services.accounts, services.affiliate);
  services.sending.registerRoutes(app);
  registerChainRoutes(app, services.platform.config.adminToken, services.watching, services.platform.db);
}
