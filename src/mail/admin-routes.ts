// Operator routes of the e-mail room (CONTRACT.md operator API, README "E-mail"): the queued mails
// across merchants and the retry of a given-up one, as /admin/settlements and its retry.
import type { FastifyInstance } from 'fastify';
import { adminRoute } from '../admin/index.ts';
import { LIST_DEFAULT, listParams } from '../platform/list-params.ts';
import { idOf, queryOf } from '../platform/http/index.ts';
import type { MailService } from './service.ts';
import { mailJson } from './operator.ts';

export function registerMailAdminRoutes(app: FastifyInstance, adminToken: string | null, mail: MailService): void {
  adminRoute(app, adminToken, {
    method: 'GET', url: '/admin/mail',
    handler: async (req) => {
      const q = queryOf(req);
      const { limit, offset } = listParams(q, LIST_DEFAULT);
      const page = await mail.forOperator(q.status, limit, offset);
      return { mail: page.mail.map(mailJson), total: page.total, limit, offset };
    },
  });
  adminRoute(app, adminToken, {
    method: 'POST', url: '/admin/mail/:id/retry',
    handler: async (req, _reply, actor) => ({ mail: mailJson(await mail.retry(idOf(req), actor)) }),
  });
}
