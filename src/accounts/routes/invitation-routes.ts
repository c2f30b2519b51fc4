// Invitations (CONTRACT.md "Invitations"): owners invite, list and revoke; anyone holding the
// token accepts it (5 a second per IP, like sign-in) and is signed in with the refresh cookie.
import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../service.ts';
import { dashboardRoute } from '../guards.ts';
import { OWNER } from '../roles.ts';
import { bodyObject } from '../validate.ts';
import { memberActor } from '../actor.ts';
import { acceptInvitation, acceptUrl, createInvitation, INVITATION_REVOKED, listInvitations, revokeInvitation } from '../invitations.ts';
import { invitationJson } from '../invitation-json.ts';
import { setRefreshCookie } from './cookies.ts';
import { ipLimitHook, limitEmailProbes } from './ip-limit.ts';
import { LOGIN_RATE_PER_IP } from './session-routes.ts';
import { idOf } from '../../platform/http/index.ts';
import { requestOrigin } from '../../audit/index.ts';

export function registerInvitationRoutes(app: FastifyInstance, accounts: AccountsService): void {
  const { clock, config, db } = accounts.platform;
  const authn = accounts.authn;

  dashboardRoute(app, authn, {
    method: 'POST', url: '/merchant/invitations', roles: OWNER,
    handler: async (req, reply, auth) => {
      await limitEmailProbes(accounts.limiter, req, auth.userId, clock.now().getTime());
      const { row, token } = await createInvitation(db, auth.merchantId, bodyObject(req.body), memberActor(req, auth), clock.now(), accounts.invitationHook);
      return reply.code(201).send({ invitation: invitationJson(row, clock.now()), accept_url: acceptUrl(config.publicUrl, token) });
    },
  });
  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/invitations', roles: OWNER,
    handler: async (_req, _reply, auth) => {
      const now = clock.now();
      return { invitations: (await listInvitations(db, auth.merchantId)).map((i) => invitationJson(i, now)) };
    },
  });
  dashboardRoute(app, authn, {
    method: 'DELETE', url: '/merchant/invitations/:id', roles: OWNER,
    handler: async (req, _reply, auth) => {
      await revokeInvitation(db, auth.merchantId, idOf(req), memberActor(req, auth), clock.now());
      return { message: INVITATION_REVOKED };
    },
  });
}

/** The accept route sets the refresh cookie: registered where the cookie plugin is. */
export function registerInvitationAcceptRoute(app: FastifyInstance, accounts: AccountsService): void {
  const { clock, config, db } = accounts.platform;
  const secure = config.publicUrl.startsWith('https:');
  app.post('/merchant/invitations/accept', { onRequest: ipLimitHook(accounts.limiter, 'invitation-accept', LOGIN_RATE_PER_IP, () => clock.now().getTime()) }, async (req, reply) => {
    const s = await acceptInvitation(db, bodyObject(req.body), clock.now(), requestOrigin(req));
    const access = await accounts.tokens.issue({ userId: s.user.id, merchantId: s.user.merchantId, sessionId: s.sessionId, role: s.role }, clock.now());
    setRefreshCookie(reply, s.refreshToken, secure);
    return reply.code(201).send({ access_token: access.token, expires_at: access.expiresAt.toISOString(), role: s.role });
  });
}
