// The customer's side of a payment link (CONTRACT.md "Payment links"), no credential:
// - POST /l/{slug}/payments (CORS open): a new payment of the link, its payer's view with checkout_url;
// - GET {checkout_base}/l/{slug}: the hosted page. It makes the payment and answers 303 to that
//   payment's checkout page (/pay/<checkout_token>), which does the rest. Served only when a
//   checkout page is (CHECKOUT_URL not empty). A browser is told of a refusal (unknown or inactive
//   link, not taking payments, the rate limit) by a page with the message, other clients by JSON.
// Both share one limit of 5 a second per IP address. Abuse: see README "Payment links".
import type { FastifyInstance, FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import { bodyObject, limitByIp, type AccountsService } from '../../accounts/index.ts';
import { requestOrigin, type Actor } from '../../audit/index.ts';
import type { LinksService } from '../service.ts';
import { paramOf } from '../../platform/http/index.ts';
import { AppError } from '../../platform/errors.ts';
import { sendErrorPage, wantsHtml } from './link-page-error.ts';

export const LINK_RATE_PER_IP = 5;
const BUCKET = 'link-pay';
/** The page remembers the payment it made, so reloading it within the hour opens the same payment. */
const COOKIE_MAX_AGE_S = 3600;

const slugOf = (req: FastifyRequest): string => paramOf(req, 'slug');
/** Whoever opens a link is the customer: audit actor kind `customer`, with where the request came from. */
const customerActor = (req: FastifyRequest): Actor => ({ kind: 'customer', ...requestOrigin(req) });
const cookieName = (slug: string): string => `link_${slug.replace(/[^A-Za-z0-9_-]/g, '')}`;

function cookieValue(req: FastifyRequest, name: string): string | undefined {
  for (const part of String(req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export async function registerLinkPublicRoutes(app: FastifyInstance, accounts: AccountsService, links: LinksService): Promise<void> {
  const clock = links.platform.clock;
  const limit = (req: FastifyRequest) => limitByIp(accounts.limiter, BUCKET, req, LINK_RATE_PER_IP, clock.now().getTime());

  await app.register(async (scope) => {
    await scope.register(cors, { origin: '*' });
    // the limit before the body is read, so every request counts (CONTRACT.md); the page below asks it
    // itself, to answer a refusal as a page
    scope.post('/:slug/payments', { onRequest: limit }, async (req, reply) =>
      reply.code(201).send(await links.pay(slugOf(req), bodyObject(req.body), customerActor(req))));
  }, { prefix: '/l' });

  if (links.checkoutBase === null) return;
  // over https the cookie is never sent in the clear (the refresh cookie's rule)
  const secure = links.checkoutBase.startsWith('https:') ? '; Secure' : '';

  app.route({
    method: 'GET', url: '/l/:slug', exposeHeadRoute: false,
    handler: async (req, reply) => {
      const slug = slugOf(req);
      reply.header('cache-control', 'no-store').header('x-robots-tag', 'noindex').header('referrer-policy', 'no-referrer');
      let page: Awaited<ReturnType<LinksService['openPage']>>;
      try {
        await limit(req);
        page = await links.openPage(slug, cookieValue(req, cookieName(slug)), customerActor(req));
      } catch (err) {
        // A payer's browser gets the refusal as a page; anything else its JSON (the error mapper).
        if (err instanceof AppError && err.status < 500 && wantsHtml(req)) return sendErrorPage(reply, err);
        throw err;
      }
      reply.header('set-cookie', `${cookieName(slug)}=${page.checkoutToken}; Path=/l/${slug}; Max-Age=${COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Lax${secure}`);
      return reply.redirect(page.checkoutUrl, 303);
    },
  });
  // Link previews and crawlers ask HEAD: it says whether the link works and makes no payment.
  app.route({
    method: 'HEAD', url: '/l/:slug',
    handler: async (req, reply) => reply.code((await links.isOpen(slugOf(req))) ? 200 : 404).header('cache-control', 'no-store').send(),
  });
}
