// Operator routes for accounts (CONTRACT.md operator API): list merchants, suspend/reinstate, set the fee.
import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../service.ts';
import { adminRoute } from '../../admin/index.ts';
import { merchantJson } from '../merchant.ts';
import { bodyObject } from '../validate.ts';
import { adminActor } from '../actor.ts';
import { listMerchants, patchMerchant } from '../admin-merchants.ts';
import { idOf } from '../../platform/http/index.ts';

export function registerAdminMerchantRoutes(app: FastifyInstance, accounts: AccountsService): void {
  const { clock, config, db } = accounts.platform;

  adminRoute(app, config.adminToken, {
    method: 'GET', url: '/admin/merchants',
    handler: async (req) => {
      const page = await listMerchants(db, req.query);
      return { ...page, merchants: page.merchants.map(merchantJson) };
    },
  });
  adminRoute(app, config.adminToken, {
    method: 'PATCH', url: '/admin/merchants/:id',
    handler: async (req) => {
      const m = await patchMerchant(db, idOf(req), bodyObject(req.body), adminActor(req), clock.now());
      accounts.authn.forgetMerchant(m.id);
      return { merchant: merchantJson(m) };
    },
  });
}
