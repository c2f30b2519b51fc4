// Door of the support chat room (CONTRACT.md "Support chat"): one conversation per merchant with
// the service's team. Typing is relayed by the realtime room and never stored.
import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../accounts/index.ts';
import type { SupportService } from './service.ts';
import { registerSupportMerchantRoutes } from './routes/merchant-routes.ts';
import { registerSupportAdminRoutes } from './routes/admin-routes.ts';

export { SupportService, MESSAGE_DELETED } from './service.ts';
export { BEFORE_INVALID } from './conversation.ts';
export {
  BODY_INVALID, MAX_BODY, DEFAULT_SUPPORT_NAME, SUPPORT_MESSAGE, SUPPORT_MESSAGE_UPDATE, SUPPORT_READ, SUPPORT_TYPING, messageJson,
} from './messages.ts';
export type { SupportReply, SupportReplyNotifier } from './notifier.ts';
export { supportMessages, supportConversations } from './schema.ts';

export function registerSupportRoutes(app: FastifyInstance, accounts: AccountsService, support: SupportService): void {
  registerSupportMerchantRoutes(app, accounts, support);
  registerSupportAdminRoutes(app, support);
}
