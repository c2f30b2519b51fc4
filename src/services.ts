// The composition of the rooms' services. Each room adds its service here; routes and workers
// receive this object and never construct services themselves.
import type { Platform } from './platform/context.ts';
import { AccountsService } from './accounts/index.ts';
import { WebhooksService } from './webhooks/index.ts';

export interface Services {
  platform: Platform;
  accounts: AccountsService;
  webhooks: WebhooksService;
}

export async function createServices(platform: Platform): Promise<Services> {
  const accounts = new AccountsService(platform);
  const webhooks = new WebhooksService(platform);
  return { platform, accounts, webhooks };
}
