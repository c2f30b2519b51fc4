import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../../accounts/index.ts';
import type { SettlementService } from '../service.ts';
import { registerPayoutAddressRoutes } from './payout-address-routes.ts';
import { registerMoneyRoutes } from './money-routes.ts';
import { registerPayoutRoutes } from './payout-routes.ts';
import { registerSettlementAdminRoutes } from './admin-routes.ts';

export function registerSettlementRoutes(app: FastifyInstance, s: { accounts: AccountsService; settlement: SettlementService }): void {
  registerPayoutAddressRoutes(app, s.accounts, s.settlement);
  registerMoneyRoutes(app, s.accounts, s.settlement);
  registerPayoutRoutes(app, s.accounts, s.settlement);
  registerSettlementAdminRoutes(app, s.settlement);
}
