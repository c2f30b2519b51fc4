// Bodies are JSON whatever the Content-Type says; an empty body is no body. Anything that does
// not parse is answered 400 `invalid request body` by the error mapper. Parsing refuses
// prototype poisoning (`__proto__` / `constructor.prototype` keys), and a parsed body is checked
// once for what no route can store: NUL characters (PostgreSQL text and jsonb cannot hold them),
// unpaired surrogates (half an emoji, valid as a JSON escape: jsonb refuses it, and text would
// store U+FFFD in its place) and nesting deeper than any field needs (jsonb and recursive code fail
// on thousands of levels).
import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError, INVALID_REQUEST_BODY } from '../errors.ts';
import { nulMessage, surrogateMessage } from '../fields.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Levels of objects and arrays one field's value may nest (`{"metadata": {}}` is one level). */
export const MAX_FIELD_DEPTH = 20;

export const bodyDepthMessage = (field: string): string => `${field} must be nested at most ${MAX_FIELD_DEPTH} levels deep`;

export function installJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    let value: unknown;
    try {
      value = sjson.parse(text, null, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      return done(new AppError(400, INVALID_REQUEST_BODY), undefined);
    }
    const problem = bodyProblem(value);
    if (problem !== null) return done(new AppError(400, problem), undefined);
    done(null, value);
  });
}

/** The message for a string no column can hold as given, naming `field`; null when fine. */
const textProblem = (s: string, field: string): string | null =>
  s.includes('\u0000') ? nulMessage(field) : s.isWellFormed() ? null : surrogateMessage(field);

/** The message for a parsed body holding such text or nested too deep; null when fine. */
export function bodyProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' && textProblem(value, '') !== null ? INVALID_REQUEST_BODY : null;
  }
  // Walk iteratively (a deep body must not overflow the stack here either), naming the top-level field.
  const stack: { v: unknown; depth: number; field: string }[] = [];
  const top = Array.isArray(value) ? value.map((v) => ['request body', v] as const) : Object.entries(value);
  for (const [k, v] of top) {
    if (textProblem(k, '') !== null) return INVALID_REQUEST_BODY;
    stack.push({ v, depth: 1, field: k.slice(0, 40) });
  }
  while (stack.length > 0) {
    const { v, depth, field } = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v, field);
      if (problem !== null) return problem;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_FIELD_DEPTH) return bodyDepthMessage(field);
    if (Array.isArray(v)) {
      for (const x of v) stack.push({ v: x, depth: depth + 1, field });
    } else {
      for (const k in v) {
        const problem = textProblem(k, field);
        if (problem !== null) return problem;
        stack.push({ v: (v as Record<string, unknown>)[k], depth: depth + 1, field });
      }
    }
  }
  return null;
}
