// The operator's view of accounts (CONTRACT.md operator API): list them; suspend or reinstate one,
// or agree its fee. Recorded in the merchant's audit log as `merchant.updated` by actor kind admin.
import { count, desc } from 'drizzle-orm';
import { badRequest } from '../platform/errors.ts';
import type { Database } from '../platform/db/index.ts';
import { LIST_DEFAULT, listParams, type ListParams } from '../platform/list-params.ts';
import type { Actor } from '../audit/index.ts';
import { merchants } from './schema.ts';
import type { Merchant } from './merchant.ts';
import { updateMerchant } from './settings.ts';
import { NOTHING_TO_UPDATE } from './settings-patch.ts';

export const MERCHANT_STATUSES = ['active', 'suspended'] as const;
export const STATUS_INVALID = 'status must be "active" or "suspended"';
export const FEE_BPS_INVALID = 'fee_bps must be a whole number between 0 and 10000';
const MAX_FEE_BPS = 10_000;

export async function listMerchants(db: Database, query: unknown): Promise<ListParams & { merchants: Merchant[]; total: number }> {
  const page = listParams(query as Record<string, unknown> | undefined, LIST_DEFAULT);
  const [rows, [{ n }]] = await Promise.all([
    db.orm.select().from(merchants).orderBy(desc(merchants.createdAt), desc(merchants.id)).limit(page.limit).offset(page.offset),
    db.orm.select({ n: count() }).from(merchants),
  ]);
  return { merchants: rows, total: Number(n), ...page };
}

export function parseMerchantPatch(body: Record<string, unknown>): { status?: string; feeBps?: number } {
  const out: { status?: string; feeBps?: number } = {};
  if (Object.hasOwn(body, 'status')) {
    if (!(MERCHANT_STATUSES as readonly unknown[]).includes(body.status)) throw badRequest(STATUS_INVALID);
    out.status = body.status as string;
  }
  if (Object.hasOwn(body, 'fee_bps')) {
    const v = body.fee_bps;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_FEE_BPS) throw badRequest(FEE_BPS_INVALID);
    out.feeBps = v;
  }
  if (Object.keys(out).length === 0) throw badRequest(NOTHING_TO_UPDATE);
  return out;
}

export async function patchMerchant(db: Database, merchantId: string, body: Record<string, unknown>, actor: Actor, now: Date): Promise<Merchant> {
  const change = parseMerchantPatch(body);
  const fields = [...(change.status ? ['status'] : []), ...(change.feeBps !== undefined ? ['fee_bps'] : [])];
  return db.transaction((tx) => updateMerchant(tx, merchantId, change, { action: 'merchant.updated', actor, fields }, now));
}
