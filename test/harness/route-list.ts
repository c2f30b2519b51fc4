// Every route the app serves, read from Fastify's own route tree (printRoutes), so a test that
// walks "every route" keeps covering the routes added after it was written.
import type { FastifyInstance } from 'fastify';

export interface RouteEntry { method: string; path: string }

/** Routes as `{method, path}` with `:name` parameters (HEAD left out: it mirrors GET). */
export function listRoutes(app: FastifyInstance): RouteEntry[] {
  const out: RouteEntry[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│   |    )*)(?:├── |└── )(.*?) \(([A-Z, ]+)\)$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + m[2];
    stack[depth] = path;
    for (const method of m[3].split(', ')) if (method !== 'HEAD') out.push({ method, path });
  }
  return out;
}
