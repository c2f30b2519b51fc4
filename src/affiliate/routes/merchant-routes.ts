// The referral program of the dashboard (CONTRACT.md "Referral program", spec 4.4 "Referral
// payouts"): owners and finance only. The payout request's rate limit runs with the role check,
// before its body is read (spec 7: a developer gets 403 and an over-eager finance member 429,
// whatever the body).
import type { FastifyInstance } from 'fastify';
import { OWNER_FINANCE, dashboardRoute, memberActor, recheckOf, type AccountsService } from '../../accounts/index.ts';
import { tooManyRequests } from '../../platform/errors.ts';
import { idOf, queryOf } from '../../platform/http/index.ts';
import type { AffiliateService } from '../service.ts';
import { PAYOUT_REQUEST_RATE } from '../service.ts';
import { listReferrals } from '../referrals.ts';
import { listCommissions } from '../commissions.ts';
import { getPayout, listPayouts } from '../payouts/list.ts';
import { COULD_NOT_LIST, COULD_NOT_READ, failsAs } from '../payouts/errors.ts';


export function registerAffiliateMerchantRoutes(app: FastifyInstance, accounts: AccountsService, affiliate: AffiliateService): void {
  const { authn } = accounts;
  const { db, clock, log } = affiliate.platform;
  const route = (method: 'GET' | 'POST', url: string, handler: Parameters<typeof dashboardRoute>[2]['handler'], limit?: Parameters<typeof dashboardRoute>[2]['limit']) =>
    dashboardRoute(app, authn, { method, url, roles: OWNER_FINANCE, handler, ...(limit ? { limit } : {}) });

  route('GET', '/merchant/affiliate', async (_req, _reply, auth) => affiliate.overview(auth.merchantId));
  route('GET', '/merchant/affiliate/referrals', async (req, _reply, auth) => listReferrals(db, auth.merchantId, queryOf(req)));
  route('GET', '/merchant/affiliate/commissions', async (req, _reply, auth) => listCommissions(db, auth.merchantId, queryOf(req)));
  route('POST', '/merchant/affiliate/payouts', async (req, reply, auth) => {
    const payout = await affiliate.requestPayout({ merchantId: auth.merchantId, userId: auth.userId, actor: memberActor(req, auth) }, req.body,
      recheckOf(accounts.limiter, auth.userId, () => clock.now().getTime()));
    return reply.code(201).send({ payout });
  }, async (_req, auth) => {
    const { perSecond, burst } = PAYOUT_REQUEST_RATE;
    if (!(await affiliate.limiter.take(`affiliate-payout:${auth.userId}`, perSecond, burst, clock.now().getTime()))) throw tooManyRequests(1000 / perSecond);
  });
  route('GET', '/merchant/affiliate/payouts', async (req, _reply, auth) => failsAs(COULD_NOT_LIST, log, () => listPayouts(db, auth.merchantId, queryOf(req))));
  route('GET', '/merchant/affiliate/payouts/:id', async (req, _reply, auth) => ({
    payout: await failsAs(COULD_NOT_READ, log, () => getPayout(db, auth.merchantId, idOf(req))),
  }));
  route('POST', '/merchant/affiliate/payouts/:id/cancel', async (req, _reply, auth) => ({
    payout: await affiliate.cancelPayout(auth.merchantId, auth.userId, idOf(req), memberActor(req, auth)),
  }));
}

