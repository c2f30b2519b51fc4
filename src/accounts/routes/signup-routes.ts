// POST /merchant/signup (spec 4.4 Session).
import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../service.ts';
import { merchantJson } from '../merchant.ts';
import { apiKeyJson } from '../api-keys.ts';
import { userJson } from '../users.ts';
import { bodyObject } from '../validate.ts';
import { setRefreshCookie } from './cookies.ts';
import { ipLimitHook } from './ip-limit.ts';
import { requestOrigin } from '../../audit/index.ts';

export const SIGNUP_RATE_PER_IP = 5;

export function registerSignupRoutes(app: FastifyInstance, accounts: AccountsService): void {
  const { clock, config } = accounts.platform;
  const secure = config.publicUrl.startsWith('https:');

  app.post('/merchant/signup', { onRequest: ipLimitHook(accounts.limiter, 'signup', SIGNUP_RATE_PER_IP, () => clock.now().getTime()) }, async (req, reply) => {
    const r = await accounts.signup(bodyObject(req.body), requestOrigin(req));
    const access = await accounts.tokens.issue({ userId: r.user.id, merchantId: r.merchant.id, sessionId: r.sessionId, role: 'owner' }, clock.now());
    setRefreshCookie(reply, r.refreshToken, secure);
    return reply.code(201).send({
      merchant: merchantJson(r.merchant),
      user: userJson(r.user),
      api_keys: r.keys.map((k) => ({ api_key: apiKeyJson(k.row), secret: k.secret })),
      access_token: access.token,
      expires_at: access.expiresAt.toISOString(),
      role: 'owner',
    });
  });
}
