// The composition of the rooms' services. Each room adds its service here; routes and workers
// receive this object and never construct services themselves.
import type { Platform } from './platform/context.ts';
import { AccountsService } from './accounts/index.ts';
import { Realtime } from './realtime/index.ts';

export interface Services {
  platform: Platform;
  accounts: AccountsService;
  realtime: Realtime;
}

export async function createServices(platform: Platform): Promise<Services> {
  const accounts = new AccountsService(platform);
  const realtime = new Realtime(platform, accounts.authn);
  return { platform, accounts, realtime };
}
