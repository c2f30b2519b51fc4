// Team changes that take the ground from under a pending invitation revoke it in their own
// transaction (README "Invitations"): its inviter removed or no longer an owner, or its email
// added to the team directly. Each is told to the owners (`invitation_revoked`) and audited.
import { and, eq, gt, type SQL } from 'drizzle-orm';
import type { Tx } from '../platform/db/index.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { invitations } from './schema.ts';
import { invitationJson } from './invitation-json.ts';
import { emitTeamChange } from './socket-events.ts';

/** Revokes the account's pending, unexpired invitations that `which` picks; `note` says why in the audit log. */
export async function revokePendingInvitations(tx: Tx, merchantId: string, which: SQL, actor: Actor, note: string, now: Date): Promise<void> {
  const rows = await tx.update(invitations).set({ status: 'revoked', revokedAt: now })
    .where(and(eq(invitations.merchantId, merchantId), eq(invitations.status, 'pending'), gt(invitations.expiresAt, now), which)).returning();
  for (const row of rows) {
    const before = { ...row, status: 'pending', revokedAt: null };
    await recordAudit(tx, { merchantId, action: 'invitation.revoked', actor, subject: row.id, before: invitationJson(before, now), after: invitationJson(row, now), note, at: now });
    await emitTeamChange(tx, merchantId, 'invitation_revoked', { invitation: row }, now);
  }
}

export const byInviter = (userId: string): SQL => eq(invitations.invitedBy, userId);
export const toEmail = (email: string): SQL => eq(invitations.email, email);
