// Sign-in, refresh and sign-out (spec 4.4 Session).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountsService } from '../service.ts';
import { login } from '../login.ts';
import { NO_REFRESH_TOKEN, refreshSession } from '../refresh.ts';
import { ALL_SESSIONS_REVOKED, LOGGED_OUT, logout } from '../logout.ts';
import { REFRESH_COOKIE } from '../sessions.ts';
import { bearer } from '../guards.ts';
import { MISSING_TOKEN } from '../authenticate.ts';
import { unauthorized } from '../../platform/errors.ts';
import type { Role } from '../roles.ts';
import { bodyObject } from '../validate.ts';
import { clearRefreshCookie, setRefreshCookie } from './cookies.ts';
import { ipLimitHook } from './ip-limit.ts';

export const LOGIN_RATE_PER_IP = 5;

export function registerSessionRoutes(app: FastifyInstance, accounts: AccountsService): void {
  const { clock, config, db } = accounts.platform;
  const secure = config.publicUrl.startsWith('https:');

  const signedIn = async (reply: FastifyReply, s: { userId: string; merchantId: string; sessionId: string; role: Role; refreshToken: string }) => {
    const access = await accounts.tokens.issue({ userId: s.userId, merchantId: s.merchantId, sessionId: s.sessionId, role: s.role }, clock.now());
    setRefreshCookie(reply, s.refreshToken, secure);
    return reply.send({ access_token: access.token, expires_at: access.expiresAt.toISOString(), role: s.role });
  };

  app.post('/merchant/login', { onRequest: ipLimitHook(accounts.limiter, 'login', LOGIN_RATE_PER_IP, () => clock.now().getTime()) }, async (req, reply) => {
    const s = await login(db, bodyObject(req.body), clock.now());
    return signedIn(reply, { userId: s.user.id, merchantId: s.user.merchantId, sessionId: s.sessionId, role: s.role, refreshToken: s.refreshToken });
  });

  // The credential before the body, as on every route (guards.ts): a refresh without its cookie is
  // 401 `no refresh token` (spec 7) and a sign-out without a token or cookie 401 `missing token`,
  // whatever body came along; these routes take none.
  const cookieOrRefuse = async (req: FastifyRequest) => { if (!req.cookies[REFRESH_COOKIE]) throw unauthorized(NO_REFRESH_TOKEN); };
  const credentialOrRefuse = async (req: FastifyRequest) => { if (!bearer(req) && !req.cookies[REFRESH_COOKIE]) throw unauthorized(MISSING_TOKEN); };

  app.post('/merchant/auth/refresh', { onRequest: cookieOrRefuse }, async (req, reply) => {
    const s = await refreshSession(db, req.cookies[REFRESH_COOKIE], clock.now());
    return signedIn(reply, s);
  });

  for (const [url, all, message] of [
    ['/merchant/auth/logout', false, LOGGED_OUT], ['/merchant/auth/logout-all', true, ALL_SESSIONS_REVOKED],
  ] as const) {
    app.post(url, { onRequest: credentialOrRefuse }, async (req, reply) => {
      await logout(db, accounts.tokens, { bearer: bearer(req), cookie: req.cookies[REFRESH_COOKIE] }, all, clock.now());
      clearRefreshCookie(reply, secure);
      return reply.send({ message });
    });
  }
}
