// The one place where errors become HTTP answers: `{"error": "<message>"}` with the spec's message.
// Bad input is never a 500 and no answer ever carries a stack trace.
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, BODY_TOO_LARGE, DATABASE_BUSY, DATABASE_BUSY_RETRY_S, INTERNAL_ERROR, INVALID_REQUEST_BODY, NOT_FOUND, RATE_LIMITED } from '../errors.ts';
import { isRefusedConnection } from '../db/refused-connection.ts';

export interface ErrorMapperOptions {
  /** Seconds to tell a client in Retry-After for an answer the service can say when to retry (a coin with no current price: the next refresh of prices). */
  retryAfterOf?: (err: AppError) => number | undefined;
}

export function installErrorMapper(app: FastifyInstance, options: ErrorMapperOptions = {}): void {
  app.setNotFoundHandler((_req, reply) => {
    reply.code(404).send({ error: NOT_FOUND });
  });

  app.setErrorHandler((err: FastifyError | AppError, req, reply) => {
    if (err instanceof AppError) {
      // A 503 is an expected answer (e.g. a coin with no current price): the market logs its cause once.
      if (err.status >= 500 && err.status !== 503) req.log.error({ err }, 'request failed');
      const retryAfterS = err.retryAfterS ?? options.retryAfterOf?.(err);
      if (retryAfterS !== undefined) reply.header('retry-after', String(retryAfterS));
      return reply.code(err.status).send({ error: err.message });
    }
    const status = (err as FastifyError).statusCode ?? 500;
    const code = (err as FastifyError).code ?? '';
    if (status === 429) return reply.code(429).send({ error: RATE_LIMITED });
    if (status === 413 || code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send({ error: BODY_TOO_LARGE });
    if ((err as FastifyError).validation) return reply.code(400).send({ error: err.message });
    if (code.startsWith('FST_ERR_CTP_') || code === 'FST_ERR_BAD_URL' || (status === 400 && !code)) {
      return reply.code(400).send({ error: INVALID_REQUEST_BODY });
    }
    if (status >= 400 && status < 500) return reply.code(status).send({ error: err.message || INVALID_REQUEST_BODY });
    // The database server stayed full for as long as the pool waits for a connection: nothing of the
    // request was written (no connection, no statement), so the client may simply come back.
    if (isRefusedConnection(err) || isRefusedConnection((err as { cause?: unknown }).cause)) {
      req.log.warn({ code: (err as { code?: string }).code }, 'database refused connections for as long as a request waits');
      return reply.code(503).header('retry-after', String(DATABASE_BUSY_RETRY_S)).send({ error: DATABASE_BUSY });
    }
    req.log.error({ err }, 'request failed');
    return reply.code(500).send({ error: INTERNAL_ERROR });
  });
}
