// Reading the audit log (spec 4.4 Audit): filters, newest first, with the list rules.
import { and, desc, eq, gte, like, lt, sql, type SQL } from 'drizzle-orm';
import { badRequest } from '../platform/errors.ts';
import { withTotal, type Database } from '../platform/db/index.ts';
import { LIST_AUDIT, listParams, type ListParams } from '../platform/list-params.ts';
import { auditEntries } from '../accounts/schema.ts';
import { auditEntryJson } from './audit.ts';

export const dateMessage = (field: 'from' | 'to') => `${field} must be a date: 2006-01-02`;
const DAY_MS = 86_400_000;

/** Midnight UTC of a `YYYY-MM-DD` day that exists; null otherwise. */
export function parseDay(v: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return null;
  const d = new Date(`${v}T00:00:00.000Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v ? d : null;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** Escapes LIKE wildcards so an action prefix matches literally. */
const likePrefix = (p: string) => `${p.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function auditFilters(merchantId: string, q: Record<string, unknown>): SQL[] {
  const where: SQL[] = [eq(auditEntries.merchantId, merchantId)];
  const action = text(q.action);
  if (action) where.push(action.endsWith('.') ? like(auditEntries.action, likePrefix(action)) : eq(auditEntries.action, action));
  const subject = text(q.subject);
  if (subject) where.push(eq(auditEntries.subject, subject));
  const paymentId = text(q.payment_id);
  if (paymentId) where.push(eq(auditEntries.paymentId, paymentId));
  const actorId = text(q.actor_id);
  if (actorId) where.push(sql`${auditEntries.actor}->>'id' = ${actorId}`);
  for (const field of ['from', 'to'] as const) {
    const raw = q[field];
    if (raw === undefined || raw === '') continue;
    const day = typeof raw === 'string' ? parseDay(raw) : null;
    if (!day) throw badRequest(dateMessage(field));
    where.push(field === 'from' ? gte(auditEntries.at, day) : lt(auditEntries.at, new Date(day.getTime() + DAY_MS)));
  }
  return where;
}

export async function listAudit(db: Database, merchantId: string, query: unknown): Promise<ListParams & { entries: Record<string, unknown>[]; total: number }> {
  const q = (query && typeof query === 'object' ? query : {}) as Record<string, unknown>;
  const where = and(...auditFilters(merchantId, q));
  const page = listParams(q, LIST_AUDIT);
  const { rows, total } = await withTotal(db.orm, auditEntries, where,
    db.orm.select().from(auditEntries).where(where).orderBy(desc(auditEntries.at), desc(auditEntries.id)).limit(page.limit).offset(page.offset));
  return { entries: rows.map(auditEntryJson), total, ...page };
}
