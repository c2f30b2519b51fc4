// Team changes (role changes, removals, invitations) of one account run one after another: each
// takes the account's row first. FOR NO KEY UPDATE, so rows referencing the account (payments,
// events) are still inserted meanwhile.
import { eq } from 'drizzle-orm';
import type { Tx } from '../platform/db/index.ts';
import { merchants } from './schema.ts';

export async function lockTeam(tx: Tx, merchantId: string): Promise<void> {
  await tx.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchantId)).for('no key update');
}
