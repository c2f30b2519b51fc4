// Creating, listing and revoking API keys from the dashboard (spec 4.4 "API keys"; O, D).
import { and, desc, eq, isNull } from 'drizzle-orm';
import { badRequest, notFound } from '../platform/errors.ts';
import type { Database } from '../platform/db/index.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { apiKeys, type ApiKeyRow } from './schema.ts';
import { apiKeyJson, insertApiKey, KEY_ACCESS, type KeyAccess } from './api-keys.ts';
import { findStore } from './stores.ts';
import { emitApiKeyUpdate } from './socket-events.ts';
import { noticeApiKey } from './notices.ts';
import { isLiveQuery } from '../platform/http/index.ts';
import { longerThan } from '../platform/fields.ts';

export const UNKNOWN_STORE = 'unknown store_id';
export const ACCESS_INVALID = 'access must be "full" or "read"';
export const LABEL_INVALID = 'label must be text of up to 100 characters';
export const KEY_REVOKED = 'api key revoked';
const MAX_LABEL = 100;

/** `?mode=test` means test; anything else, or nothing, means live (spec 4.4). */
export const isTestMode = (query: unknown): boolean => !isLiveQuery(query);

function parseKeyBody(body: Record<string, unknown>): { label: string; storeId: string | null; access: KeyAccess } {
  const label = body.label ?? '';
  if (typeof label !== 'string' || longerThan(label, MAX_LABEL)) throw badRequest(LABEL_INVALID);
  const access = body.access ?? 'full';
  if (!(KEY_ACCESS as readonly unknown[]).includes(access)) throw badRequest(ACCESS_INVALID);
  const storeId = body.store_id ?? null;
  if (storeId !== null && (typeof storeId !== 'string' || storeId === '')) throw badRequest(UNKNOWN_STORE);
  return { label: label.trim(), storeId, access: access as KeyAccess };
}

export async function createKey(db: Database, merchantId: string, livemode: boolean, body: Record<string, unknown>, actor: Actor, now: Date): Promise<{ row: ApiKeyRow; secret: string }> {
  const input = parseKeyBody(body);
  return db.transaction(async (tx) => {
    if (input.storeId && !(await findStore(tx, merchantId, input.storeId))) throw badRequest(UNKNOWN_STORE);
    const created = await insertApiKey(tx, { merchantId, livemode, storeId: input.storeId, label: input.label, access: input.access, createdBy: actor.id ?? null, at: now });
    await recordAudit(tx, { merchantId, action: 'api_key.created', actor, subject: created.row.id, after: apiKeyJson(created.row), at: now });
    await emitApiKeyUpdate(tx, created.row, now);
    await noticeApiKey(tx, created.row, 'created', now);
    return created;
  });
}

/** Keys of one mode, revoked included, newest first. */
export function listKeys(db: Database, merchantId: string, livemode: boolean): Promise<ApiKeyRow[]> {
  return db.orm.select().from(apiKeys).where(and(eq(apiKeys.merchantId, merchantId), eq(apiKeys.livemode, livemode)))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

/** Revokes a key of the account (either mode); revoking it again changes nothing. The caller evicts the returned key from the auth cache. */
export async function revokeKey(db: Database, merchantId: string, id: string, actor: Actor, now: Date): Promise<ApiKeyRow> {
  return db.transaction(async (tx) => {
    const [before] = await tx.select().from(apiKeys).where(and(eq(apiKeys.id, id), eq(apiKeys.merchantId, merchantId))).limit(1);
    if (!before) throw notFound();
    const [row] = await tx.update(apiKeys).set({ revokedAt: now }).where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).returning();
    if (!row) return before;
    await recordAudit(tx, { merchantId, action: 'api_key.revoked', actor, subject: id, before: apiKeyJson(before), after: apiKeyJson(row), at: now });
    await emitApiKeyUpdate(tx, row, now);
    await noticeApiKey(tx, row, 'revoked', now);
    return row;
  });
}
