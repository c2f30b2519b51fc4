// The operator's side of the support chat (CONTRACT.md "Operator API"): conversations newest first,
// a conversation's messages, a reply (side `support`), the read mark. ADMIN_TOKEN guard.
import type { FastifyInstance } from 'fastify';
import { adminRoute } from '../../admin/index.ts';
import { bodyObject } from '../../accounts/index.ts';
import type { SupportService } from '../service.ts';
import { messageJson } from '../messages.ts';
import { paramOf, queryOf } from '../../platform/http/index.ts';

const merchantOf = (req: { params: unknown }) => paramOf(req, 'merchant_id');

export function registerSupportAdminRoutes(app: FastifyInstance, support: SupportService): void {
  const token = support.platform.config.adminToken;
  adminRoute(app, token, {
    method: 'GET', url: '/admin/support',
    handler: async (req) => support.conversations(queryOf(req)),
  });
  adminRoute(app, token, {
    method: 'GET', url: '/admin/support/:merchant_id/messages',
    handler: async (req) => support.operatorMessages(merchantOf(req), queryOf(req)),
  });
  adminRoute(app, token, {
    method: 'POST', url: '/admin/support/:merchant_id/messages',
    handler: async (req, reply, actor) => reply.code(201).send({ message: messageJson(await support.reply(merchantOf(req), bodyObject(req.body), actor)) }),
  });
  adminRoute(app, token, {
    method: 'POST', url: '/admin/support/:merchant_id/read',
    handler: async (req, _reply, actor) => support.operatorRead(merchantOf(req), actor),
  });
}
