// Payout addresses in force, as rows and as the planner's inputs.
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import type { PayoutAddressInput } from './planner.ts';
import { payoutAddresses, type PayoutAddressRow } from './schema.ts';

export async function addressesInForce(ex: Executor, merchantId: string, livemode: boolean): Promise<PayoutAddressRow[]> {
  return ex.select().from(payoutAddresses)
    .where(and(eq(payoutAddresses.merchantId, merchantId), eq(payoutAddresses.livemode, livemode), isNull(payoutAddresses.deletedAt)))
    .orderBy(asc(payoutAddresses.createdAt), asc(payoutAddresses.id));
}

export function planAddress(r: PayoutAddressRow): PayoutAddressInput {
  return {
    id: r.id, token: r.token as TokenSymbol, address: r.address, ...(r.tag !== null ? { tag: r.tag } : {}),
    default: r.isDefault, created_at: r.createdAt, active_at: r.activeAt,
  };
}

export async function addressById(ex: Executor, merchantId: string, id: string, lock = false): Promise<PayoutAddressRow | undefined> {
  const q = ex.select().from(payoutAddresses)
    .where(and(eq(payoutAddresses.id, id), eq(payoutAddresses.merchantId, merchantId), isNull(payoutAddresses.deletedAt)));
  const [row] = lock ? await q.for('share') : await q;
  return row;
}
