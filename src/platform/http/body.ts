// Bodies are JSON whatever the Content-Type says; an empty body is no body. Anything that does
// not parse is answered 400 `invalid request body` by the error mapper.
import type { FastifyInstance } from 'fastify';
import { AppError, INVALID_REQUEST_BODY } from '../errors.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export function installJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new AppError(400, INVALID_REQUEST_BODY), undefined);
    }
  });
}
