// Builds the OpenAPI 3.1 document from the route descriptions (routes/), the objects
// (components.ts) and the webhook events. Adds to each operation what follows from its credential:
// security, the credential's errors, and for a POST under /v1 or /merchant the Idempotency-Key.
import { DASHBOARD_ROUTES } from '../accounts/index.ts';
import { IDEMPOTENCY_KEY_IN_PROGRESS, IDEMPOTENCY_KEY_LENGTH, IDEMPOTENCY_KEY_REUSED } from '../idempotency/index.ts';
import { coveredRoute } from '../idempotency/hooks.ts';
import { BODY_TOO_LARGE, DATABASE_BUSY, DATABASE_BUSY_RETRY_S, INVALID_REQUEST_BODY } from '../platform/errors.ts';
import { nulMessage, surrogateMessage } from '../platform/fields.ts';
import { bodyDepthMessage } from '../platform/http/body.ts';
import { SCHEMAS } from './components.ts';
import type { Answer, RouteDoc } from './describe.ts';
import { ROUTE_DOCS } from './routes/index.ts';
import { ref, str, type Schema } from './schema.ts';
import { webhookSection } from './webhook-events.ts';

const CREDENTIAL_ERRORS: Record<RouteDoc['auth'], Record<number, readonly string[]>> = {
  api_key: {
    401: ['missing api key', 'invalid api key'],
    403: ['live mode is off for this account: the owner can turn it on in the dashboard; until then use a test key', 'merchant account is suspended', 'this api key is read-only: it can only read (GET)'],
    429: ['rate limit exceeded'],
  },
  access_token: { 401: ['missing token', 'invalid or expired token'], 403: ['insufficient permissions', 'merchant account is suspended'] },
  none: {},
};
const SECURITY: Record<RouteDoc['auth'], unknown[]> = {
  api_key: [{ apiKeyHeader: [] }, { apiKeyBearer: [] }],
  access_token: [{ accessToken: [] }],
  none: [],
};

/** `/v1/payments/:id` → `/v1/payments/{id}` */
export const openApiPath = (fastifyPath: string): string => fastifyPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const paramNames = (fastifyPath: string): string[] => [...fastifyPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);

/**
 * Whether the route checks an Idempotency-Key it is sent (every POST under /v1 or /merchant,
 * src/idempotency/hooks.ts): a route without a credential checks it but keeps no answer under it.
 */
const checksIdempotencyKey = (r: RouteDoc): boolean => coveredRoute({ method: r.method, url: r.path });

/** Whether the route stores and replays the answer for a key: the hook's routes that have a credential (no route opts out). */
export const takesIdempotencyKey = (r: RouteDoc): boolean => r.auth !== 'none' && checksIdempotencyKey(r);

function operationId(r: RouteDoc): string {
  const words = r.path.replace(/\.csv$/, '-csv').split(/[/\-.]/).filter(Boolean).map((w) => (w.startsWith(':') ? `by-${w.slice(1)}` : w));
  return [r.method.toLowerCase(), ...words].map((w, i) => (i === 0 ? w : w.split(/[-_]/).map((p) => p[0].toUpperCase() + p.slice(1)).join(''))).join('');
}

/**
 * What the body parser refuses in any body, named by its top-level field (src/platform/http/body.ts):
 * text no column can hold (a NUL, an unpaired surrogate), and a value nested too deep.
 */
function bodyFieldErrors(body: Schema): string[] {
  const props = Object.entries((body as { properties?: Record<string, Schema> }).properties ?? {});
  return props.flatMap(([name, s]) => {
    const scalar = ['string', 'integer', 'number', 'boolean'].includes(String((s as { type?: unknown }).type));
    return [nulMessage(name), surrogateMessage(name), ...(scalar ? [] : [bodyDepthMessage(name)])];
  });
}

/**
 * Methods whose body Fastify reads on every route, one that takes no body too: any text sent is
 * parsed (src/platform/http/body.ts), so a body that is not JSON is refused 400 and one past
 * BODY_LIMIT_BYTES 413 before the route runs. GET and HEAD bodies are never read.
 */
const READS_A_BODY = new Set<RouteDoc['method']>(['POST', 'PUT', 'PATCH', 'DELETE']);

function errorsOf(r: RouteDoc): Map<number, string[]> {
  const out = new Map<number, string[]>();
  const add = (status: number, messages: readonly string[]) => out.set(status, [...new Set([...(out.get(status) ?? []), ...messages])]);
  for (const [s, m] of Object.entries(CREDENTIAL_ERRORS[r.auth])) add(Number(s), m);
  if (READS_A_BODY.has(r.method)) {
    add(400, [INVALID_REQUEST_BODY, ...(r.body ? bodyFieldErrors(r.body) : [])]);
    add(413, [BODY_TOO_LARGE]);
  }
  for (const [s, m] of Object.entries(r.errors ?? {})) add(Number(s), m);
  if (checksIdempotencyKey(r)) add(400, [IDEMPOTENCY_KEY_LENGTH]);
  if (takesIdempotencyKey(r)) {
    add(409, [IDEMPOTENCY_KEY_IN_PROGRESS]);
    add(422, [IDEMPOTENCY_KEY_REUSED]);
  }
  // The database server stayed full past the pool's wait (src/platform/http/error-mapper.ts): any
  // route that reads or writes a row can be told to come back.
  if (r.database !== false) add(503, [DATABASE_BUSY]);
  return out;
}

function answer(a: Answer, replayable: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { description: a.description };
  if (replayable) out.headers = { 'Idempotent-Replayed': { description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key', schema: str(undefined, { const: 'true' }) } };
  if (a.schema) out.content = { [a.contentType ?? 'application/json']: { schema: a.schema, ...(a.example !== undefined ? { example: a.example } : {}) } };
  return out;
}

const retryAfter = (description: string) => ({ headers: { 'Retry-After': { description, schema: { type: 'integer', minimum: 1 } } } });

/**
 * The answers that say when to come back: a limit (its window), a coin with no current price (the
 * next refresh of prices) and a database that stayed full (DATABASE_BUSY_RETRY_S).
 */
function retryAfterOf(status: number, messages: readonly string[]): Record<string, unknown> {
  if (status === 429) return retryAfter('seconds to wait: the limit\'s window, the longest a client can have to wait before one of its requests leaves it');
  if (status !== 503) return {};
  const busy = `${DATABASE_BUSY_RETRY_S} when the database is busy (\`${DATABASE_BUSY}\`)`;
  const unpriced = 'the seconds until prices are next asked for (RATE_REFRESH_S) when a coin has no current price';
  const reasons = [messages.includes(DATABASE_BUSY) ? busy : undefined, messages.some((m) => m !== DATABASE_BUSY) ? unpriced : undefined].filter(Boolean);
  return retryAfter(`seconds to wait: ${reasons.join('; ')}`);
}

function operation(r: RouteDoc): Record<string, unknown> {
  const replayable = takesIdempotencyKey(r);
  const responses: Record<string, unknown> = {};
  for (const [status, a] of Object.entries(r.responses)) responses[status] = answer(a, replayable);
  for (const [status, messages] of errorsOf(r)) {
    if (responses[status]) continue;
    responses[status] = {
      description: messages.join('; '),
      ...retryAfterOf(status, messages),
      content: { 'application/json': { schema: ref('Error'), examples: Object.fromEntries(messages.map((m, i) => [`e${i + 1}`, { summary: m, value: { error: m } }])) } },
    };
  }
  const parameters: unknown[] = paramNames(r.path).map((name) => ({ name, in: 'path', required: true, schema: str() }));
  for (const [name, schema] of Object.entries(r.query ?? {})) {
    parameters.push({ name, in: 'query', required: r.requiredQuery?.includes(name) ?? false, schema });
  }
  if (replayable) {
    parameters.push({
      name: 'Idempotency-Key', in: 'header', required: false, schema: str(undefined, { minLength: 1, maxLength: 255 }),
      description: 'Repeat a request safely: the first answer for a key (per merchant, mode and key) is stored for 24 hours and replayed with `Idempotent-Replayed: true`.',
    });
  } else if (checksIdempotencyKey(r)) {
    parameters.push({
      name: 'Idempotency-Key', in: 'header', required: false, schema: str(undefined, { minLength: 1, maxLength: 255 }),
      description: 'Checked (1 to 255 characters) but never stored: this route has no account to keep an answer under, and its answers carry fresh secrets, so a repeat runs again.',
    });
  }
  const roles = DASHBOARD_ROUTES.get(`${r.method} ${r.path}`)?.roles;
  const description = [r.description, roles ? `Roles: ${roles.join(', ')}.` : undefined].filter(Boolean).join('\n\n');
  return {
    operationId: operationId(r),
    summary: r.summary,
    ...(description ? { description } : {}),
    tags: [r.tag],
    security: SECURITY[r.auth],
    ...(parameters.length ? { parameters } : {}),
    ...(r.body ? {
      requestBody: {
        required: Array.isArray(r.body.required) && r.body.required.length > 0,
        content: { 'application/json': { schema: r.body, ...(r.bodyExample !== undefined ? { example: r.bodyExample } : {}) } },
      },
    } : {}),
    responses,
  };
}

export interface DocumentOptions {
  serverUrl: string;
  version: string;
}

export function buildOpenApiDocument(opts: DocumentOptions, routes: readonly RouteDoc[] = ROUTE_DOCS): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const p = (paths[openApiPath(r.path)] ??= {});
    p[r.method.toLowerCase()] = operation(r);
  }
  return {
    openapi: '3.1.1',
    info: {
      title: 'Crypto payment gateway',
      version: opts.version,
      description: 'Dollar-priced payments paid in twelve coins on seven chains. Errors are `{"error": "<message>"}` with the exact messages listed per route. Test keys create test payments on a simulated chain.',
    },
    servers: [{ url: opts.serverUrl }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    webhooks: webhookSection(),
    components: {
      schemas: SCHEMAS,
      securitySchemes: {
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A secret API key (64 hex characters); test or live by the key. Wins over Authorization when both are sent.' },
        apiKeyBearer: { type: 'http', scheme: 'bearer', description: 'The same API key as `Authorization: Bearer <API_KEY>`.' },
        accessToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A dashboard access token from POST /merchant/login (15 minutes).' },
      },
    },
  };
}
