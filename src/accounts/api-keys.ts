// API keys: a 64-hex secret shown once; only its SHA-256 is stored (a fast lookup, and a leaked
// table gives no working key).
import crypto from 'node:crypto';
import { newId, randomHex } from '../platform/ids.ts';
import type { Executor } from '../platform/db/index.ts';
import { apiKeys, type ApiKeyRow } from './schema.ts';
import { iso } from './merchant.ts';

export const KEY_ACCESS = ['full', 'read'] as const;
export type KeyAccess = (typeof KEY_ACCESS)[number];

// One-shot hash: no Hash object per request.
export const hashSecret = (secret: string): string => crypto.hash('sha256', secret, 'hex');

export interface NewKey {
  merchantId: string;
  livemode: boolean;
  storeId?: string | null;
  label: string;
  access: KeyAccess;
  createdBy: string | null;
  at: Date;
}

export async function insertApiKey(tx: Executor, k: NewKey): Promise<{ row: ApiKeyRow; secret: string }> {
  const secret = randomHex(32);
  const [row] = await tx.insert(apiKeys).values({
    id: newId('key', k.at),
    merchantId: k.merchantId,
    livemode: k.livemode,
    storeId: k.storeId ?? null,
    label: k.label,
    access: k.access,
    last4: secret.slice(-4),
    secretHash: hashSecret(secret),
    createdBy: k.createdBy,
    createdAt: k.at,
  }).returning();
  return { row, secret };
}

/** The API key object of spec part 2; never carries the secret. */
export function apiKeyJson(k: ApiKeyRow): Record<string, unknown> {
  return {
    id: k.id,
    merchant_id: k.merchantId,
    livemode: k.livemode,
    ...(k.storeId ? { store_id: k.storeId } : {}),
    label: k.label,
    access: k.access,
    last4: k.last4,
    ...(k.createdBy ? { created_by: k.createdBy } : {}),
    created_at: iso(k.createdAt),
    ...(k.lastUsedAt ? { last_used_at: iso(k.lastUsedAt) } : {}),
    ...(k.revokedAt ? { revoked_at: iso(k.revokedAt) } : {}),
  };
}
