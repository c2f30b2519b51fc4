// Every route the app registers, recorded as it is added (Fastify has no list to read afterwards).
// The OpenAPI test compares this table with the document, so a route nobody described fails it.
import type { FastifyInstance } from 'fastify';

export interface RegisteredRoute {
  method: string;
  /** Fastify's pattern, e.g. `/v1/payments/:id`. */
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RegisteredRoute[];
  }
}

/** Starts recording; call before any route is registered. */
export function recordRouteTable(app: FastifyInstance): void {
  const table: RegisteredRoute[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      table.push({ method, url: route.url });
    }
  });
}
