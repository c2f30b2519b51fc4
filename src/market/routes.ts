// GET /admin/market (CONTRACT.md, operator API): every token's rate, status and the sources behind
// it; live figures by default, `?mode=test` for the figures test mode prices from.
import type { FastifyInstance } from 'fastify';
import { adminRoute } from '../admin/index.ts';
import { livemodeOf } from '../platform/http/index.ts';
import type { Market } from './market.ts';

export function registerMarketRoutes(app: FastifyInstance, market: Market, adminToken: string | null): void {
  adminRoute(app, adminToken, {
    method: 'GET', url: '/admin/market',
    handler: async (req) => ({ market: market.report(livemodeOf(req)) }),
  });
}
