// The team (spec 4.4 "Team", owner only).
import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../service.ts';
import { dashboardRoute } from '../guards.ts';
import { OWNER } from '../roles.ts';
import { userJson } from '../users.ts';
import { bodyObject } from '../validate.ts';
import { memberActor } from '../actor.ts';
import { limitEmailProbes } from './ip-limit.ts';
import { idOf } from '../../platform/http/index.ts';
import { addUser, changeRole, listUsers, removeUser, USER_REMOVED } from '../team.ts';

export function registerTeamRoutes(app: FastifyInstance, accounts: AccountsService): void {
  const { clock, db } = accounts.platform;
  const authn = accounts.authn;

  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/users', roles: OWNER,
    handler: async (_req, _reply, auth) => ({ users: (await listUsers(db, auth.merchantId)).map(userJson) }),
  });
  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/users', roles: OWNER,
    handler: async (req, reply, auth) => {
      await limitEmailProbes(accounts.limiter, req, auth.userId, clock.now().getTime());
      const user = await addUser(db, auth.merchantId, bodyObject(req.body), memberActor(req, auth), clock.now());
      return reply.code(201).send({ user: userJson(user) });
    },
  });
  dashboardRoute(app, authn, {
    method: 'PATCH', url: '/merchant/users/:id', roles: OWNER,
    handler: async (req, _reply, auth) => ({
      user: userJson(await changeRole(db, auth.merchantId, idOf(req), bodyObject(req.body), memberActor(req, auth), clock.now())),
    }),
  });
  dashboardRoute(app, authn, {
    method: 'DELETE', url: '/merchant/users/:id', roles: OWNER,
    handler: async (req, _reply, auth) => {
      await removeUser(db, auth.merchantId, idOf(req), memberActor(req, auth), clock.now());
      return { message: USER_REMOVED };
    },
  });
}

