// Every room's routes, registered on the app. A room exports one `register…Routes(app, services)`.
import type { FastifyInstance } from 'fastify';
import type { Services } from './services.ts';
import { registerSignupRoutes } from './accounts/index.ts';
import { registerPaymentRoutes } from './payments/index.ts';

export async function registerRoutes(app: FastifyInstance, services: Services): Promise<void> {
  registerSignupRoutes(app, services.accounts);
  await registerPaymentRoutes(app, services.accounts, services.payments, services.platform.clock);
}
