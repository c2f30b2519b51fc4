// pino for everything; secrets are redacted by path so a logged request never carries one.
import pino, { type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie',
  'res.headers["set-cookie"]', '*.password', '*.secret', '*.current_password', '*.new_password',
  // the SMTP password (config.mail.pass, nodemailer's auth.pass) and SMTP_URL, which carries it
  '*.pass', '*.auth.pass', '*.mail.pass', '*.smtpUrl', '*.SMTP_URL',
];

/** Keys of an error (at any depth of its causes) that carry a query's bound values: hashes of
 * passwords and keys, emails, metadata. The SQL text stays (it says what failed), the values go. */
const QUERY_VALUE_KEYS = new Set(['params', 'parameters', 'values', 'bindings', 'detail']);
// Drizzle writes the values into its message too: `Failed query: <sql>\nparams: <values>`.
const PARAMS_IN_TEXT = /\nparams: [\s\S]*?(?=\n {4}at |$)/;

function dropQueryValues(v: unknown, depth = 0): unknown {
  if (v === null || typeof v !== 'object' || depth > 8) return v;
  if (Array.isArray(v)) return v.map((x) => dropQueryValues(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (QUERY_VALUE_KEYS.has(k)) out[k] = '[redacted]';
    else if ((k === 'message' || k === 'stack') && typeof x === 'string') out[k] = x.replace(PARAMS_IN_TEXT, '\nparams: [redacted]');
    else out[k] = dropQueryValues(x, depth + 1);
  }
  return out;
}

/** A message without the values bound to a failed query (for text kept or shown, not only logged). */
export function withoutQueryValues(text: string): string {
  return text.replace(PARAMS_IN_TEXT, '\nparams: [redacted]');
}

/** pino's error serializer, without the bound values of a failed query. */
export function serializeError(err: unknown): unknown {
  // Background workers (chain watch, transfers) log a failure by its message alone (`err: e.message`):
  // a failed query's message carries its values too.
  if (typeof err === 'string') return withoutQueryValues(err);
  return dropQueryValues(err instanceof Error ? pino.stdSerializers.err(err) : err);
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, serializers: { err: serializeError, error: serializeError } };
  return destination ? pino(options, destination) : pino(options);
}

const { chindingsSym, serializersSym, stringifiersSym } = pino.symbols;

/**
 * Fastify's `childLoggerFactory`: the per-request child with its request id. pino would pass the
 * id through the `*.` redaction (which re-parses every redacted path on each call) only to write
 * it back as the same JSON string, so a plain string binding is written directly. Anything else
 * (options, a serializer or redaction of that key, a non-string value) takes pino's own path, and
 * whatever the child logs is redacted by its parent's rules as before.
 */
export function requestChildLogger(logger: Logger, bindings: Record<string, unknown>, opts: pino.ChildLoggerOptions): Logger {
  const keys = Object.keys(bindings);
  const key = keys[0];
  const value = bindings[key];
  const own = logger as unknown as Record<symbol, Record<string, unknown>>;
  if (keys.length !== 1 || typeof value !== 'string' || Object.keys(opts).length !== 0 || own[serializersSym][key] || own[stringifiersSym][key]) {
    return logger.child(bindings, opts);
  }
  // No options: pino's fast child, which adds nothing to the parent's bindings.
  const child = logger.child({});
  (child as unknown as Record<symbol, string>)[chindingsSym] += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  return child;
}

export type { Logger };
