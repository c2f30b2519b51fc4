// Door of the payment links room (CONTRACT.md "Payment links"): the merchant's routes, the
// customer's side (/l/{slug}) and the counts kept from the outbox (feed.ts).
import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../accounts/index.ts';
import type { LinksService } from './service.ts';
import { registerLinkMerchantRoutes } from './routes/merchant-routes.ts';
import { registerLinkPublicRoutes } from './routes/public-routes.ts';

export { LinksService, LIVE_LINK_OFF, LINK_NOT_TAKING_PAYMENTS, LINK_NUMBERS_TAKEN, linkOrderId, type LinkPayments } from './service.ts';
export { linkFeed } from './feed.ts';
export { linkJson, LINK_UPDATE } from './json.ts';
export { NAME_INVALID, ACTIVE_INVALID } from './input.ts';
export { LINK_RATE_PER_IP } from './routes/public-routes.ts';
export { paymentLinks, type LinkRow } from './schema.ts';

export async function registerLinkRoutes(app: FastifyInstance, accounts: AccountsService, links: LinksService): Promise<void> {
  registerLinkMerchantRoutes(app, accounts, links);
  await registerLinkPublicRoutes(app, accounts, links);
}
