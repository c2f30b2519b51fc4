// Payout addresses stored before the gateway refused its own addresses and token contracts (an
// upgraded database) are checked again whenever they would be paid: a manual payout answers 400
// with the refusal; a settlement or a payout the service makes itself sends nothing, the money
// stays in the merchant's balance, and the team is told once per state of the address.
import { and, eq, gte } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import { raiseNotification, notifications } from '../notifications/index.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import type { OwnAddressCheck } from './ports.ts';
import type { PayoutAddressRow } from './schema.ts';
import type { PayoutAddressInput } from './types.ts';
import { planAddress } from './address-store.ts';

export const PAYOUT_ADDRESS_REFUSED = 'Payout address refused';

/**
 * `rows` as the planner and pricing take them, each live one that no payout may go to carrying its
 * refusal (`refused`): routing never makes it a destination.
 */
export async function checkedAddresses(ex: Executor, check: OwnAddressCheck, rows: readonly PayoutAddressRow[]): Promise<PayoutAddressInput[]> {
  const out: PayoutAddressInput[] = [];
  for (const r of rows) {
    // test settlements are on paper: nothing is sent
    const why = r.livemode ? await check(ex, r.token as TokenSymbol, r.address) : null;
    out.push(why ? { ...planAddress(r), refused: why } : planAddress(r));
  }
  return out;
}

/**
 * Tells the team that nothing was sent to `address` and why; once while the address stays as it is
 * (a scheduled payout is tried every hour, an automatic one every minute).
 */
export async function tellRefused(tx: Executor, address: PayoutAddressRow, refusal: string, now: Date): Promise<void> {
  const [told] = await tx.select({ seq: notifications.seq }).from(notifications).where(and(
    eq(notifications.merchantId, address.merchantId), eq(notifications.subject, address.id), eq(notifications.title, PAYOUT_ADDRESS_REFUSED),
    gte(notifications.createdAt, address.updatedAt),
  )).limit(1);
  if (told) return;
  await raiseNotification(tx, {
    merchantId: address.merchantId, category: 'payouts', livemode: address.livemode, title: PAYOUT_ADDRESS_REFUSED, subject: address.id, at: now,
    body: `Nothing was sent to the ${address.token} payout address ${address.address}: ${refusal}. The money stays in your balance; change or delete this address.`,
  });
}
