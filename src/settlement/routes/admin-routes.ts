// Operator routes of CONTRACT.md: payout review, failed direct settlements and ledger adjustments.
import type { FastifyInstance } from 'fastify';
import { adminRoute } from '../../admin/index.ts';
import { bodyObject } from '../../accounts/index.ts';
import { LIST_OPERATOR, listParams } from '../../platform/list-params.ts';
import type { SettlementService } from '../service.ts';
import { ledgerEntryJson, payoutJson, settlementJson } from '../json.ts';
import { idOf, queryOf, str } from './helpers.ts';
import { oneOfFilter } from '../../platform/fields.ts';
import { PAYOUT_STATUSES } from '../payouts/payout-store.ts';

/** CONTRACT.md: /admin answers 400 to invalid values (the dashboard's payout list is not shown). */
export const PAYOUT_STATUS_INVALID = `status must be one of ${PAYOUT_STATUSES.join(', ')}`;

export function registerSettlementAdminRoutes(app: FastifyInstance, settlement: SettlementService): void {
  const token = settlement.platform.config.adminToken;
  const svc = settlement.payouts;

  adminRoute(app, token, {
    method: 'GET', url: '/admin/payouts',
    handler: async (req) => {
      const q = queryOf(req);
      const status = oneOfFilter(q.status, PAYOUT_STATUSES, PAYOUT_STATUS_INVALID);
      const { limit, offset } = listParams(q, LIST_OPERATOR);
      const page = await svc.list({ status }, limit, offset);
      return { payouts: page.payouts.map(payoutJson), total: page.total, limit, offset };
    },
  });
  for (const [verb, to] of [['approve', 'approved'], ['reject', 'rejected'], ['sent', 'sent']] as const) {
    adminRoute(app, token, {
      method: 'POST', url: `/admin/payouts/:id/${verb}`,
      handler: async (req, _reply, actor) => ({ payout: payoutJson(await svc.review(idOf(req), bodyObject(req.body), to, actor)) }),
    });
  }
  adminRoute(app, token, {
    method: 'GET', url: '/admin/settlements',
    handler: async (req) => {
      const q = queryOf(req);
      const { limit, offset } = listParams(q, LIST_OPERATOR);
      const page = await settlement.forOperator(str(q.status), limit, offset);
      return { settlements: page.settlements.map(settlementJson), total: page.total, limit, offset };
    },
  });
  adminRoute(app, token, {
    method: 'POST', url: '/admin/settlements/:id/retry',
    handler: async (req, _reply, actor) => ({ settlement: settlementJson(await settlement.retry(idOf(req), actor)) }),
  });
  adminRoute(app, token, {
    method: 'POST', url: '/admin/settlements/:id/return',
    handler: async (req, _reply, actor) => ({
      settlement: settlementJson(await settlement.returnToBalance(idOf(req), bodyObject(req.body), actor)),
    }),
  });
  adminRoute(app, token, {
    method: 'POST', url: '/admin/ledger/adjustments',
    handler: async (req, reply, actor) => reply.code(201).send({ entry: ledgerEntryJson(await settlement.adjust(bodyObject(req.body), actor)) }),
  });
}
