// The audit log (spec 4.4 Audit; owner).
import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../service.ts';
import { dashboardRoute } from '../guards.ts';
import { OWNER } from '../roles.ts';
import { listAudit } from '../../audit/index.ts';

export function registerAuditRoutes(app: FastifyInstance, accounts: AccountsService): void {
  dashboardRoute(app, accounts.authn, {
    method: 'GET', url: '/merchant/audit', roles: OWNER,
    handler: async (req, _reply, auth) => listAudit(accounts.platform.db, auth.merchantId, req.query),
  });
}
