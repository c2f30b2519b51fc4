// GET /admin/wallets (CONTRACT.md operator API): the service's hot wallets, their balances and
// whether a transfer waits for one to be funded. Addresses only: keys never leave the service.
import type { FastifyInstance } from 'fastify';
import { adminRoute } from '../../admin/index.ts';
import type { HotWallets } from './hot-wallets.ts';

export function registerWalletRoutes(app: FastifyInstance, adminToken: string | null, wallets: HotWallets): void {
  adminRoute(app, adminToken, { method: 'GET', url: '/admin/wallets', handler: async () => ({ wallets: await wallets.list() }) });
}
