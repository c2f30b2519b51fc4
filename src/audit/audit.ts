// The audit log: who changed what, written in the transaction of the change. Secrets are never
// recorded (callers pass objects without them; `scrub` drops any key that looks like one anyway).
import type { FastifyRequest } from 'fastify';
import { newId } from '../platform/ids.ts';
import type { Executor } from '../platform/db/index.ts';
import { appendEvent } from '../events/index.ts';
import { auditEntries } from '../accounts/schema.ts';

export type ActorKind = 'merchant' | 'api_key' | 'customer' | 'admin' | 'system' | 'anonymous';

export interface Actor {
  kind: ActorKind;
  id?: string;
  merchant_id?: string;
  ip?: string;
  user_agent?: string;
  request_id?: string;
  email?: string;
  role?: string;
}

export interface AuditInput {
  merchantId: string;
  action: string;
  actor: Actor;
  subject?: string | null;
  paymentId?: string | null;
  before?: unknown;
  after?: unknown;
  note?: string | null;
  at: Date;
}

const SECRET_KEYS = /secret|password|token_hash|secret_hash/i;

export function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).filter(([k]) => !SECRET_KEYS.test(k)).map(([k, v]) => [k, scrub(v)]));
  }
  return value;
}

/** Where a request came from: ip (X-Forwarded-For with TRUST_PROXY), user agent, request id. */
/** Where a request came from, as every audit actor carries it (spec 2 "Audit entry"). */
export type RequestOrigin = Pick<Actor, 'ip' | 'user_agent' | 'request_id'>;

export function requestOrigin(req: FastifyRequest): RequestOrigin {
  const ua = req.headers['user-agent'];
  return { ip: req.ip, ...(ua ? { user_agent: String(ua).slice(0, 500) } : {}), request_id: String(req.id) };
}

/** The socket event of a new audit entry: owners watch the log live (dashboard socket `audit:entry`). */
export const AUDIT_EVENT = 'audit:entry';

export type AuditRow = ReturnType<typeof auditRow>;

/** The audit_entries row of an input: a new id, the actor's merchant filled in, secrets scrubbed. */
export function auditRow(e: AuditInput) {
  return {
    id: newId('aud', e.at),
    merchantId: e.merchantId,
    at: e.at,
    action: e.action,
    actor: { ...e.actor, merchant_id: e.actor.merchant_id ?? e.merchantId },
    subject: e.subject ?? null,
    paymentId: e.paymentId ?? null,
    before: e.before === undefined ? null : scrub(e.before),
    after: e.after === undefined ? null : scrub(e.after),
    note: e.note ?? null,
  };
}

export async function recordAudit(tx: Executor, e: AuditInput): Promise<Record<string, unknown>> {
  const row = auditRow(e);
  await tx.insert(auditEntries).values(row);
  const json = auditEntryJson(row);
  await appendEvent(tx, { type: AUDIT_EVENT, livemode: false, merchantId: e.merchantId, data: json, at: e.at });
  return json;
}

export function auditEntryJson(r: {
  id: string; merchantId: string; at: Date; action: string; actor: unknown; subject: string | null;
  paymentId?: string | null; before: unknown; after: unknown; note: string | null;
}): Record<string, unknown> {
  return {
    id: r.id,
    at: r.at.toISOString(),
    action: r.action,
    actor: r.actor,
    merchant_id: r.merchantId,
    ...(r.subject !== null ? { subject: r.subject } : {}),
    ...(r.paymentId ? { payment_id: r.paymentId } : {}),
    ...(r.before !== null && r.before !== undefined ? { before: r.before } : {}),
    ...(r.after !== null && r.after !== undefined ? { after: r.after } : {}),
    ...(r.note !== null ? { note: r.note } : {}),
  };
}
