// Operator routes of CONTRACT.md: payout review, failed direct settlements and ledger adjustments.
import type { FastifyInstance } from 'fastify';
import { adminRoute } from '../../admin/index.ts';
import { bodyObject } from '../../accounts/index.ts';
import { LIST_OPERATOR, listParams } from '../../platform/list-params.ts';
import type { SettlementService } from '../service.ts';
import { ledgerEntryJson, payoutJson, settlementJson } from '../json.ts';
import { idOf, queryOf, str } from './helpers.ts';

export function registerSettlementAdminRoutes(app: FastifyInstance, settlement: SettlementService): void {
  const token = settlement.platform.config.adminToken;
  const svc = settlement.payouts;

  adminRoute(app, token, {
    method: 'GET', url: '/admin/payouts',
    handler: async (req) => {
      const q = queryOf(req);
      const { limit, offset } = listParams(q, LIST_OPERATOR);
      const page = await svc.list({ status: q.status }, limit, offset);
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
