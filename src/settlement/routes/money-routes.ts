// Balances, ledger (page and CSV statement) and settlements (spec 4.4 Balances, ledger, settlements).
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ANY_ROLE, dashboardRoute, type AccountsService } from '../../accounts/index.ts';
import { LIST_DEFAULT, LIST_LEDGER, listParams } from '../../platform/list-params.ts';
import { isToken, unsupportedToken } from '../../tokens/index.ts';
import { badRequest } from '../../platform/errors.ts';
import { oneOfFilter } from '../../platform/fields.ts';
import { givenOnce } from '../../payments/list-filters.ts';
import type { SettlementService } from '../service.ts';
import { listBalances } from '../balance-store.ts';
import { balanceJson, ledgerEntryJson, settlementJson } from '../json.ts';
import { SETTLEMENT_MODES, SETTLEMENT_MODE_INVALID, SETTLEMENT_STATUSES, SETTLEMENT_STATUS_INVALID, ledgerCsv, ledgerPage, settlementById, settlementPage } from '../statement.ts';
import { idOf, livemodeOf, queryOf, str } from './helpers.ts';

export function registerMoneyRoutes(app: FastifyInstance, accounts: AccountsService, settlement: SettlementService): void {
  const { authn } = accounts;
  const db = () => settlement.platform.db.orm;

  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/balances', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => ({
      balances: (await listBalances(db(), { merchantId: auth.merchantId, livemode: livemodeOf(req) })).map(balanceJson),
    }),
  });

  // An unknown coin is refused (spec 7's message), never read as "every coin".
  const ledgerFilter = (req: Parameters<typeof livemodeOf>[0], merchantId: string) => {
    const token = queryOf(req).token;
    if (token !== undefined && token !== '' && !isToken(token)) throw badRequest(unsupportedToken(String(token).slice(0, 40)));
    return { merchantId, livemode: livemodeOf(req), ...(isToken(token) ? { token } : {}) };
  };

  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/ledger', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => {
      const { limit, offset } = listParams(queryOf(req), LIST_LEDGER);
      const page = await ledgerPage(db(), ledgerFilter(req, auth.merchantId), limit, offset);
      return { entries: page.entries.map(ledgerEntryJson), total: page.total, limit, offset };
    },
  });

  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/ledger.csv', roles: ANY_ROLE,
    handler: async (req, reply, auth) => {
      const mode = livemodeOf(req) ? 'live' : 'test';
      reply.header('content-type', 'text/csv; charset=utf-8');
      reply.header('content-disposition', `attachment; filename="ledger-${mode}.csv"`);
      return reply.send(Readable.from(ledgerCsv(db(), ledgerFilter(req, auth.merchantId))));
    },
  });

  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/settlements', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => {
      const q = queryOf(req);
      const { limit, offset } = listParams(q, LIST_DEFAULT);
      // An unknown or repeated filter is refused, as /merchant/payouts and /admin/settlements do:
      // ignored, it listed every settlement as if none was given (`?status=complete` showed the
      // failed and held ones among them). Empty is no filter.
      const status = oneOfFilter(q.status, SETTLEMENT_STATUSES, SETTLEMENT_STATUS_INVALID);
      const mode = oneOfFilter(q.settlement, SETTLEMENT_MODES, SETTLEMENT_MODE_INVALID);
      if (Array.isArray(q.payment_id)) throw badRequest(givenOnce('payment_id'));
      const page = await settlementPage(db(), {
        merchantId: auth.merchantId, livemode: livemodeOf(req),
        ...(status ? { status } : {}),
        ...(mode ? { mode } : {}),
        ...(str(q.payment_id) ? { paymentId: str(q.payment_id) } : {}),
      }, limit, offset);
      return { settlements: page.settlements.map(settlementJson), total: page.total, limit, offset };
    },
  });

  dashboardRoute(app, authn, {
    method: 'GET', url: '/merchant/settlements/:id', roles: ANY_ROLE,
    handler: async (req, _reply, auth) => ({ settlement: settlementJson(await settlementById(db(), auth.merchantId, idOf(req))) }),
  });
}
