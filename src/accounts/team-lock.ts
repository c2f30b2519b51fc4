// Team changes (role changes, removals, invitations) of one account run one after another: each
// takes the account's row first. FOR NO KEY UPDATE, so rows referencing the account (payments,
// events) are still inserted meanwhile.
import { and, eq } from 'drizzle-orm';
import type { Tx } from '../platform/db/index.ts';
import { forbidden } from '../platform/errors.ts';
import type { Actor } from '../audit/index.ts';
import { merchants, users } from './schema.ts';
import { INSUFFICIENT_PERMISSIONS } from './roles.ts';

export async function lockTeam(tx: Tx, merchantId: string): Promise<void> {
  await tx.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchantId)).for('no key update');
}

/** Whether the member is an owner of the account now (read under the team lock). */
const stillOwner = async (tx: Tx, merchantId: string, userId: string | undefined): Promise<boolean> =>
  userId !== undefined && (await tx.select({ id: users.id }).from(users)
    .where(and(eq(users.id, userId), eq(users.merchantId, merchantId), eq(users.role, 'owner'))).limit(1)).length > 0;

/**
 * Takes the team lock for an owner's change: a member's word stands while they are an owner, so one
 * removed or demoted since the route let them in changes nothing (403 `insufficient permissions`).
 */
export async function lockTeamAsOwner(tx: Tx, merchantId: string, actor: Actor): Promise<void> {
  await lockTeam(tx, merchantId);
  if (actor.kind === 'merchant' && !(await stillOwner(tx, merchantId, actor.id))) throw forbidden(INSUFFICIENT_PERMISSIONS);
}
