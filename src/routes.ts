// Every room's routes, registered on the app. A room exports one `register…Routes(app, services)`.
import type { FastifyInstance } from 'fastify';
import type { Services } from './services.ts';

export async function registerRoutes(_app: FastifyInstance, _services: Services): Promise<void> {
}
