// `POST /referrals/{code}/click` (CONTRACT.md "Referral program"): no credential, CORS open to any
// website, 5 a second per IP address; 204, or 404 `not found` for an unknown or suspended code.
import type { FastifyInstance } from 'fastify';
import cors from '@fastify/cors';
import { ipLimitHook, type AccountsService } from '../../accounts/index.ts';
import { paramOf } from '../../platform/http/index.ts';
import type { AffiliateService } from '../service.ts';

export const CLICKS_PER_IP_PER_SECOND = 5;

export async function registerClickRoute(app: FastifyInstance, accounts: AccountsService, affiliate: AffiliateService): Promise<void> {
  const { clock } = affiliate.platform;
  await app.register(async (scope) => {
    await scope.register(cors, { origin: '*' });
    scope.post('/:code/click', { onRequest: ipLimitHook(accounts.limiter, 'referral-click', CLICKS_PER_IP_PER_SECOND, () => clock.now().getTime()) }, async (req, reply) => {
      await affiliate.click(paramOf(req, 'code'));
      return reply.code(204).send();
    });
  }, { prefix: '/referrals' });
}
