// Operator routes of the watcher (CONTRACT.md operator API): the chains' state and the unmatched deposits.
import type { FastifyInstance } from 'fastify';
import { adminRoute } from '../../admin/index.ts';
import type { Database } from '../../platform/db/index.ts';
import type { ChainWatching } from './service.ts';
import { listUnmatched } from './unmatched.ts';

export function registerChainRoutes(app: FastifyInstance, adminToken: string | null, watching: ChainWatching, db: Database): void {
  adminRoute(app, adminToken, { method: 'GET', url: '/admin/chains', handler: async () => ({ chains: await watching.report() }) });
  adminRoute(app, adminToken, {
    method: 'GET', url: '/admin/unmatched-deposits',
    handler: async (req) => {
      const chain = (req.query as { chain?: unknown } | undefined)?.chain;
      return { deposits: await listUnmatched(db.orm, typeof chain === 'string' && chain !== '' ? chain : undefined) };
    },
  });
}
