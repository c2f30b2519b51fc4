// X-Request-Id on every response: the caller's own when it sent a sensible one, else a new id.
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { newId } from '../ids.ts';

const ACCEPTABLE = /^[\x21-\x7e]{1,200}$/;

export function genRequestId(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  const value = Array.isArray(sent) ? sent[0] : sent;
  return value && ACCEPTABLE.test(value) ? value : newId('req');
}

export function installRequestId(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request, and a promise per request is not free.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });
}
