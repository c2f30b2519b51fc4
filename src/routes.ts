// Every room's routes, registered on the app. A room exports one `register…Routes(app, services)`.
import type { FastifyInstance } from 'fastify';
import type { Services } from './services.ts';
import { registerSignupRoutes } from './accounts/index.ts';
import { registerWebhookRoutes } from './webhooks/index.ts';

export async function registerRoutes(app: FastifyInstance, services: Services): Promise<void> {
  registerSignupRoutes(app, services.accounts);
  registerWebhookRoutes(app, services);
}
