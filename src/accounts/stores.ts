// Stores: several shops on one account, each with its own keys and order-id space (spec 2, 4.4).
import { and, desc, eq } from 'drizzle-orm';
import { badRequest, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import type { Database, Executor } from '../platform/db/index.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { stores, type StoreRow } from './schema.ts';
import { iso } from './merchant.ts';
import { emitStoreUpdate } from './socket-events.ts';
import { longerThan } from '../platform/fields.ts';

export const STORE_NAME_INVALID = 'name is required (up to 100 characters)';
export const STORE_NAME_MAX = 100;

export function storeJson(s: StoreRow): Record<string, unknown> {
  return { id: s.id, merchant_id: s.merchantId, name: s.name, created_at: iso(s.createdAt), updated_at: iso(s.updatedAt) };
}

/**
 * A store's (and a payment link's) name: at most 100 characters as sent (the document's maxLength:
 * what a client checks is what is refused), something left once white space at either end is
 * trimmed; kept trimmed.
 */
export function requireStoreName(v: unknown): string {
  if (typeof v !== 'string' || longerThan(v, STORE_NAME_MAX)) throw badRequest(STORE_NAME_INVALID);
  const name = v.trim();
  if (!name) throw badRequest(STORE_NAME_INVALID);
  return name;
}

export function listStores(db: Database, merchantId: string): Promise<StoreRow[]> {
  return db.orm.select().from(stores).where(eq(stores.merchantId, merchantId)).orderBy(desc(stores.createdAt), desc(stores.id));
}

export async function findStore(ex: Executor, merchantId: string, id: string): Promise<StoreRow | null> {
  const [row] = await ex.select().from(stores).where(and(eq(stores.id, id), eq(stores.merchantId, merchantId))).limit(1);
  return row ?? null;
}

export async function createStore(db: Database, merchantId: string, body: Record<string, unknown>, actor: Actor, now: Date): Promise<StoreRow> {
  const name = requireStoreName(body.name);
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(stores).values({ id: newId('sto', now), merchantId, name, createdAt: now, updatedAt: now }).returning();
    await recordAudit(tx, { merchantId, action: 'store.created', actor, subject: row.id, after: storeJson(row), at: now });
    await emitStoreUpdate(tx, row, now);
    return row;
  });
}

export async function renameStore(db: Database, merchantId: string, id: string, body: Record<string, unknown>, actor: Actor, now: Date): Promise<StoreRow> {
  const name = requireStoreName(body.name);
  return db.transaction(async (tx) => {
    // under the row's lock: the audit's `before` is what this rename replaced, even with another
    // committed since this transaction began
    const [before] = await tx.select().from(stores).where(and(eq(stores.id, id), eq(stores.merchantId, merchantId))).for('update');
    if (!before) throw notFound();
    const [row] = await tx.update(stores).set({ name, updatedAt: now }).where(eq(stores.id, id)).returning();
    await recordAudit(tx, { merchantId, action: 'store.updated', actor, subject: id, before: storeJson(before), after: storeJson(row), at: now });
    await emitStoreUpdate(tx, row, now);
    return row;
  });
}
