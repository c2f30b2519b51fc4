// /merchant/payout-addresses (spec 4.4 Payout addresses): read by any role, changed by owners and finance.
import type { FastifyInstance } from 'fastify';
import { ANY_ROLE, OWNER_FINANCE, bodyObject, dashboardRoute, recheckOf, type AccountsService } from '../../accounts/index.ts';
import type { SettlementService } from '../service.ts';
import { payoutAddressJson } from '../json.ts';
import { ADDRESS_DELETED } from '../address-rules.ts';
import { idOf, livemodeOf, memberActor } from './helpers.ts';

export function registerPayoutAddressRoutes(app: FastifyInstance, accounts: AccountsService, settlement: SettlementService): void {
  const { authn } = accounts;
  const svc = settlement.addresses;
  // the limit of wrong passwords wraps the password re-check alone (not the whole change): a label
  // or default change asks for no password and is never refused by it
  const who = (req: Parameters<typeof memberActor>[0], auth: Parameters<typeof memberActor>[1]) => ({
    merchantId: auth.merchantId, userId: auth.userId, actor: memberActor(req, auth),
    recheck: recheckOf(accounts.limiter, auth.userId, () => accounts.platform.clock.now().getTime()),
  });

  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/payout-addresses', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => ({ addresses: (await svc.list(auth.merchantId, livemodeOf(req))).map(payoutAddressJson) }),
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/payout-addresses', roles: OWNER_FINANCE,
    handler: async (req, reply, auth) => {
      const row = await svc.add(who(req, auth), livemodeOf(req), bodyObject(req.body));
      return reply.code(201).send({ address: payoutAddressJson(row) });
    },
  });
  dashboardRoute(app, authn, {
    method: 'PATCH', url: '/merchant/payout-addresses/:id', roles: OWNER_FINANCE,
    handler: async (req, _reply, auth) => {
      const row = await svc.update(who(req, auth), idOf(req), bodyObject(req.body));
      return { address: payoutAddressJson(row) };
    },
  });
  dashboardRoute(app, authn, {
    method: 'DELETE', url: '/merchant/payout-addresses/:id', roles: OWNER_FINANCE,
    handler: async (req, _reply, auth) => {
      await svc.remove(who(req, auth), idOf(req));
      return { message: ADDRESS_DELETED };
    },
  });
}
