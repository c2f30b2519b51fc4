// The gateway's TypeScript client: every route typed from the OpenAPI document (`client`), plus a
// small layer for the common calls. Answers are values, never throws: `{ok: true, data}` or
// `{ok: false, error}` with the gateway's exact message and status.
import createClient from 'openapi-fetch';
import { verifyWebhook, type VerifyOptions, type VerifyResult } from '../../src/webhooks/verify.ts';
import type { components, paths } from './schema.d.ts';

export type { components, paths } from './schema.d.ts';
export type Payment = components['schemas']['Payment'];
export type TokenInfo = components['schemas']['TokenInfo'];
export type CreatePaymentBody = NonNullable<paths['/v1/payments']['post']['requestBody']>['content']['application/json'];
export type { VerifyResult, VerifyOptions };

/** What the gateway said no with (`status` 0: no answer, e.g. the network failed). */
export interface GatewayError {
  status: number;
  /** The gateway's message, exactly as the API reference lists it. */
  message: string;
  requestId: string | null;
}

export type Result<T> = { ok: true; data: T; status: number; replayed: boolean } | { ok: false; error: GatewayError };

export interface GatewayOptions {
  /** e.g. `https://pay.example.com` */
  baseUrl: string;
  /** A secret API key; test or live by the key. */
  apiKey: string;
  fetch?: typeof globalThis.fetch;
}

interface Answered<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Why a request got no answer at all: fetch's own "fetch failed" keeps the reason (connect ECONNREFUSED …) in `cause`. */
export function networkReason(err: unknown): string {
  const cause = (err as { cause?: unknown })?.cause;
  return cause instanceof Error && cause.message ? cause.message : err instanceof Error ? err.message : String(err);
}

async function settle<T>(call: () => Promise<Answered<T>>): Promise<Result<T>> {
  let answered: Answered<T>;
  try {
    answered = await call();
  } catch (err) {
    return { ok: false, error: { status: 0, message: networkReason(err), requestId: null } };
  }
  const { response } = answered;
  const requestId = response.headers.get('x-request-id');
  if (response.ok && answered.data !== undefined) {
    return { ok: true, data: answered.data, status: response.status, replayed: response.headers.get('idempotent-replayed') === 'true' };
  }
  const body = answered.error as { error?: unknown } | undefined;
  const message = typeof body?.error === 'string' ? body.error : `HTTP ${response.status}`;
  return { ok: false, error: { status: response.status, message, requestId } };
}

export function createGateway(opts: GatewayOptions) {
  const client = createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/$/, ''),
    headers: { authorization: `Bearer ${opts.apiKey}` },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const idem = (key: string | undefined) => (key === undefined ? {} : { header: { 'Idempotency-Key': key } });

  return {
    /** The typed client of every route, for calls the layer below does not wrap. */
    client,
    payments: {
      /** Creates a payment; pass `idempotencyKey` to retry safely (a repeat gets the first answer, `replayed: true`). */
      create: (body: CreatePaymentBody, o: { idempotencyKey?: string } = {}): Promise<Result<Payment>> =>
        settle(() => client.POST('/v1/payments', { body, params: idem(o.idempotencyKey) })),
      get: (id: string): Promise<Result<Payment>> => settle(() => client.GET('/v1/payments/{id}', { params: { path: { id } } })),
      simulate: (id: string, outcome: NonNullable<Payment['simulation']>['outcome'], o: { idempotencyKey?: string } = {}): Promise<Result<Payment>> =>
        settle(() => client.POST('/v1/payments/{id}/simulate', { params: { path: { id }, ...idem(o.idempotencyKey) }, body: { outcome } })),
    },
    webhooks: {
      /**
       * Checks a webhook you received: pass the raw body (bytes or text, before any JSON parsing),
       * the X-Webhook-Signature header and your mode's signing secret.
       */
      verify: (rawBody: string | Uint8Array, signatureHeader: string | null | undefined, secret: string, options?: VerifyOptions): VerifyResult =>
        verifyWebhook(rawBody, signatureHeader, secret, options),
    },
  };
}

export type Gateway = ReturnType<typeof createGateway>;
