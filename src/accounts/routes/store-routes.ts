// Stores (spec 4.4 "Stores"): anyone reads, owners and developers create and rename.
import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../service.ts';
import { dashboardRoute } from '../guards.ts';
import { ANY_ROLE, OWNER_DEVELOPER } from '../roles.ts';
import { bodyObject } from '../validate.ts';
import { memberActor } from '../actor.ts';
import { createStore, listStores, renameStore, storeJson } from '../stores.ts';
import { idOf } from '../../platform/http/index.ts';

export function registerStoreRoutes(app: FastifyInstance, accounts: AccountsService): void {
  const { clock, db } = accounts.platform;
  const authn = accounts.authn;

  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/stores', roles: ANY_ROLE,
    handler: async (_req, _reply, auth) => ({ stores: (await listStores(db, auth.merchantId)).map(storeJson) }),
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/stores', roles: OWNER_DEVELOPER,
    handler: async (req, reply, auth) => {
      const store = await createStore(db, auth.merchantId, bodyObject(req.body), memberActor(req, auth), clock.now());
      return reply.code(201).send({ store: storeJson(store) });
    },
  });
  dashboardRoute(app, authn, {
    method: 'PATCH', url: '/merchant/stores/:id', roles: OWNER_DEVELOPER,
    handler: async (req, _reply, auth) => ({
      store: storeJson(await renameStore(db, auth.merchantId, idOf(req), bodyObject(req.body), memberActor(req, auth), clock.now())),
    }),
  });
}
