// How one route is described. To describe a new route, add one `RouteDoc` to the list of its area
// in src/openapi/routes/ (the route-table test names any route left out). Path parameters come
// from the pattern; the credential's errors, the Idempotency-Key header and its errors are added
// by the document builder from `auth`.
import type { Schema } from './schema.ts';

export type Auth = 'api_key' | 'access_token' | 'none';

export interface Answer {
  description: string;
  /** JSON body; omit for an answer with no JSON body. */
  schema?: Schema;
  /** Another media type (e.g. text/csv), described by `schema` as a string. */
  contentType?: string;
  example?: unknown;
}

export interface RouteDoc {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Fastify's pattern, exactly as registered: `/v1/payments/:id`. */
  path: string;
  summary: string;
  tag: string;
  auth: Auth;
  description?: string;
  query?: Record<string, Schema>;
  /** Required query parameters (by name). */
  requiredQuery?: readonly string[];
  body?: Schema;
  bodyExample?: unknown;
  /** Answers by status (the successful ones, and any error with a body of its own). */
  responses: Record<number, Answer>;
  /** The spec's error messages this route answers, by status (shown as examples of the Error shape). */
  errors?: Record<number, readonly string[]>;
  /**
   * `false` for a route that reads and writes no row (it answers from memory): it never answers the
   * database's 503 `the service is busy`, which the document adds to every other route.
   */
  database?: false;
}
