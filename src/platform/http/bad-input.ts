// Bad input caught before any route runs, so every route answers it the same spec-shaped way:
// `{"error": "<message>"}` with a 4xx, never Fastify's own bodies, a plain-text answer or a 500.
// - Fastify's router errors (a URL that does not decode, a path parameter over the length limit).
// - NUL characters in path ids and query values: PostgreSQL text cannot hold them, so a query
//   carrying one would fail. An id holding one names nothing, and its route says so as it does for
//   any unknown id; a query value holding one is a 400 naming its field.
// - Error answers some plugin wrote as text (e.g. @fastify/cors's strict preflight check).
// The first two are answered before a CORS-open route's own CORS runs: they carry its headers here.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NOT_FOUND } from '../errors.ts';
import { nulMessage } from '../fields.ts';
import { corsOpenHeaders } from './cors-open.ts';

export const INVALID_URL = 'invalid url';

/**
 * The router's limit on one path parameter. A parameter over it never reaches its route, and the
 * route is what answers an unknown id in the spec's words (`payment not found`, `settlement not
 * found`, ...) after its key or token check (spec 7); so the limit is the whole request head Node
 * accepts (its default `maxHeaderSize`), and any id that arrives is the route's to answer.
 */
export const MAX_PARAM_CHARS = 16 * 1024;

/** Fastify's `frameworkErrors`: router failures answered in the spec's shape. */
export function answerFrameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  withCors(req, reply);
  // Past MAX_PARAM_CHARS (a server started with a larger maxHeaderSize): it names nothing.
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.code(404).send({ error: NOT_FOUND });
    return;
  }
  reply.code(400).send({ error: INVALID_URL });
}

function withCors(req: FastifyRequest, reply: FastifyReply): void {
  const headers = corsOpenHeaders(req.url);
  if (headers !== null) reply.headers(headers);
}

const hasNul = (v: unknown): boolean =>
  typeof v === 'string' ? v.includes('\u0000') : Array.isArray(v) && v.some((x) => typeof x === 'string' && x.includes('\u0000'));

export function installBadInputGuards(app: FastifyInstance): void {
  // Callback hooks (no promise per request): these run on every request.
  app.addHook('onRequest', (req, reply, done) => {
    // An id holding a NUL names nothing: the route goes on and answers it as it answers any unknown
    // id (after its own key and role checks: `payment not found`, `settlement not found`, ...).
    // U+FFFD stands in for each NUL: PostgreSQL text can hold it and no id or token contains it.
    const params = req.params as Record<string, unknown> | undefined;
    if (params) {
      for (const k in params) {
        const v = params[k];
        if (typeof v === 'string' && v.includes('\u0000')) params[k] = v.replaceAll('\u0000', '\uFFFD');
      }
    }
    const query = req.query as Record<string, unknown> | undefined;
    if (query) {
      for (const k in query) {
        if (hasNul(query[k]) || k.includes('\u0000')) {
          withCors(req, reply);
          reply.code(400).send({ error: nulMessage(k.replaceAll('\u0000', '').slice(0, 40) || 'query') });
          return;
        }
      }
    }
    done();
  });

  app.addHook('onSend', (_req, reply, payload, done) => {
    if (reply.statusCode < 400) return done(null, payload);
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('application/json') || type.startsWith('text/html')) return done(null, payload);
    // A plugin answered an error as text: keep its status, give it the spec's shape.
    const text = typeof payload === 'string' ? payload.trim() : '';
    const message = text !== '' && text.length <= 200 ? text.charAt(0).toLowerCase() + text.slice(1) : defaultMessage(reply.statusCode);
    reply.header('content-type', 'application/json; charset=utf-8');
    reply.removeHeader('content-length');
    done(null, JSON.stringify({ error: message }));
  });
}

function defaultMessage(status: number): string {
  if (status === 404) return NOT_FOUND;
  return status >= 500 ? 'internal error' : 'invalid request';
}
