// Route declarations for the two authenticated surfaces. Every dashboard route names its roles
// here (DASHBOARD_ROUTES records them for the route × role test); every /v1 route says whether a
// read-only key may GET it.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { forbidden } from '../platform/errors.ts';
import type { ApiKeyAuth, UserAuth } from './auth-context.ts';
import type { Authenticator } from './authenticate.ts';
import { INSUFFICIENT_PERMISSIONS, type Role } from './roles.ts';

type Handler<A> = (req: FastifyRequest, reply: FastifyReply, auth: A) => Promise<unknown>;

export interface DashboardRouteSpec {
  method: HTTPMethods;
  url: string;
  roles: readonly Role[];
}

/** Every dashboard route with its roles, as registered (keyed by "METHOD url"). */
export const DASHBOARD_ROUTES = new Map<string, DashboardRouteSpec>();

function bearer(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : undefined;
}

/** The API key of a /v1 request: X-API-Key wins over Authorization (spec 5 rule 1). */
function apiKeyOf(req: FastifyRequest): string | undefined {
  const x = req.headers['x-api-key'];
  const v = Array.isArray(x) ? x[0] : x;
  return v && v.trim() ? v.trim() : bearer(req);
}

export interface DashboardRouteOptions {
  handler: Handler<UserAuth>;
  /** Runs after the role check and before the body is read (a per-user rate limit answers 429 before a bad body's 400). */
  limit?: (req: FastifyRequest, auth: UserAuth) => Promise<void>;
}

export function dashboardRoute(app: FastifyInstance, authn: Authenticator, spec: DashboardRouteSpec & DashboardRouteOptions): void {
  DASHBOARD_ROUTES.set(`${spec.method} ${spec.url}`, { method: spec.method, url: spec.url, roles: spec.roles });
  app.route({
    method: spec.method,
    url: spec.url,
    // onRequest: credentials and roles are checked before the body is even read.
    onRequest: async (req) => {
      const auth = await authn.user(bearer(req));
      if (!spec.roles.includes(auth.role)) throw forbidden(INSUFFICIENT_PERMISSIONS);
      req.auth = auth;
      await spec.limit?.(req, auth);
    },
    handler: (req, reply) => spec.handler(req, reply, req.auth as UserAuth),
  });
}

export interface ApiRouteSpec {
  method: HTTPMethods;
  url: string;
  readOnlyAllowed?: boolean;
  /** A refusal of this key beyond the read-only rule (a storefront's key on the account's webhook), told before the body is read. */
  refuse?: (auth: ApiKeyAuth) => void;
  handler: Handler<ApiKeyAuth>;
}

export function apiRoute(app: FastifyInstance, authn: Authenticator, spec: ApiRouteSpec): void {
  app.route({
    method: spec.method,
    url: spec.url,
    // onRequest: like the dashboard's roles, the key and what it may do are checked before the body is read.
    onRequest: async (req) => {
      const auth = await authn.apiKey(apiKeyOf(req), { method: req.method, readAllowed: spec.readOnlyAllowed === true });
      spec.refuse?.(auth);
      req.auth = auth;
    },
    handler: (req, reply) => spec.handler(req, reply, req.auth as ApiKeyAuth),
  });
}

export { bearer };
