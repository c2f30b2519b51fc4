// Public checkout API (spec 4.2): no credential, the checkout token is in the path; CORS open to
// any website on /checkout* and /tokens. Coin choice and simulate are limited to 5/s per IP.
import type { FastifyInstance } from 'fastify';
import cors from '@fastify/cors';
import { bodyObject, ipLimitHook, type AccountsService } from '../../accounts/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { PaymentsService } from '../service.ts';
import { CHECKOUT_EXPOSED_HEADERS, isLiveQuery, paramOf } from '../../platform/http/index.ts';

const PER_IP_PER_SECOND = 5;
const JSON_TYPE = 'application/json; charset=utf-8';

export async function registerCheckoutRoutes(app: FastifyInstance, accounts: AccountsService, payments: PaymentsService, clock: Clock): Promise<void> {
  // The kept views listen to the database: they stop with the app.
  app.addHook('onClose', async () => { await payments.changes.close(); });
  await app.register(async (scope) => {
    // `Date` shown to other origins too: the hosted page counts down by the gateway's clock, read
    // from it, also when its API is on another host (API_BASE).
    await scope.register(cors, { origin: '*', exposedHeaders: CHECKOUT_EXPOSED_HEADERS });
    // The body comes as JSON text (kept between reads of an unchanged payment): sent as is.
    scope.get('/:checkoutToken', async (req, reply) => reply.type(JSON_TYPE).send(await payments.checkoutBody(paramOf(req, 'checkoutToken'))));
    const nowMs = () => clock.now().getTime();
    scope.post('/:checkoutToken/token', { onRequest: ipLimitHook(accounts.limiter, 'checkout-token', PER_IP_PER_SECOND, nowMs) }, async (req) =>
      payments.chooseByCheckout(paramOf(req, 'checkoutToken'), bodyObject(req.body).token));
    scope.post('/:checkoutToken/simulate', { onRequest: ipLimitHook(accounts.limiter, 'checkout-simulate', PER_IP_PER_SECOND, nowMs) }, async (req) =>
      payments.simulateByCheckout(paramOf(req, 'checkoutToken'), bodyObject(req.body).outcome));
  }, { prefix: '/checkout' });

  await app.register(async (scope) => {
    await scope.register(cors, { origin: '*' });
    scope.get('/', async (req) => ({ tokens: await payments.publicTokens(isLiveQuery(req.query)) }));
  }, { prefix: '/tokens' });
}
