// The signed-in member: who am I, and changing my password (spec 4.4 Session; any role).
import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import type { AccountsService } from '../service.ts';
import { dashboardRoute } from '../guards.ts';
import { ANY_ROLE } from '../roles.ts';
import { merchantJson } from '../merchant.ts';
import { userJson } from '../users.ts';
import { users } from '../schema.ts';
import { bodyObject } from '../validate.ts';
import { memberActor } from '../actor.ts';
import { changePassword, PASSWORD_CHANGED } from '../password-change.ts';
import { clearRefreshCookie } from './cookies.ts';
import { recheckOf } from '../recheck-limit.ts';
import { unauthorized } from '../../platform/errors.ts';
import { INVALID_TOKEN } from '../authenticate.ts';

export function registerMeRoutes(app: FastifyInstance, accounts: AccountsService): void {
  const { clock, config, db } = accounts.platform;
  const secure = config.publicUrl.startsWith('https:');

  dashboardRoute(app, accounts.authn, {
    method: 'GET', url: '/merchant/me', roles: ANY_ROLE,
    handler: async (_req, _reply, auth) => {
      const [user] = await db.orm.select().from(users).where(eq(users.id, auth.userId)).limit(1);
      if (!user) throw unauthorized(INVALID_TOKEN); // removed between the guard and this read
      return { merchant: merchantJson(auth.merchant), user: userJson(user) };
    },
  });

  dashboardRoute(app, accounts.authn, {
    method: 'POST', url: '/merchant/me/password', roles: ANY_ROLE,
    handler: async (req, reply, auth) => {
      // only the re-check of the current password is limited, not the reading of the body
      await changePassword(db, auth.merchantId, auth.userId, bodyObject(req.body), memberActor(req, auth), clock.now(),
        recheckOf(accounts.limiter, auth.userId, () => clock.now().getTime()));
      clearRefreshCookie(reply, secure);
      return reply.send({ message: PASSWORD_CHANGED });
    },
  });
}
