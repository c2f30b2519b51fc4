// Settings and live mode (spec 4.4 Settings; owner).
import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../service.ts';
import { dashboardRoute } from '../guards.ts';
import { OWNER } from '../roles.ts';
import { merchantJson } from '../merchant.ts';
import { bodyObject } from '../validate.ts';
import { memberActor } from '../actor.ts';
import { setLiveMode, updateSettings } from '../settings.ts';

export function registerSettingsRoutes(app: FastifyInstance, accounts: AccountsService): void {
  const { clock, db } = accounts.platform;
  const authn = accounts.authn;

  dashboardRoute(app, authn, {
    method: 'PATCH', url: '/merchant/settings', roles: OWNER,
    handler: async (req, _reply, auth) => {
      const m = await updateSettings(db, auth.merchantId, bodyObject(req.body), memberActor(req, auth), clock.now());
      authn.forgetMerchant(m.id);
      return { merchant: merchantJson(m) };
    },
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/live', roles: OWNER,
    handler: async (req, _reply, auth) => {
      const m = await setLiveMode(db, auth.merchantId, bodyObject(req.body), memberActor(req, auth), clock.now());
      authn.forgetMerchant(m.id);
      return { merchant: merchantJson(m) };
    },
  });
}
