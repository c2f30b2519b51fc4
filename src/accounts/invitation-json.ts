// The invitation object of CONTRACT.md "Invitations". `expired` is never stored: a pending
// invitation past `expires_at` is expired when read. The token (hashed) is never part of it.
import { iso } from './merchant.ts';
import type { InvitationRow } from './schema.ts';

export const invitationStatus = (i: InvitationRow, now: Date): string =>
  i.status === 'pending' && i.expiresAt.getTime() <= now.getTime() ? 'expired' : i.status;

export function invitationJson(i: InvitationRow, now: Date): Record<string, unknown> {
  return {
    id: i.id, merchant_id: i.merchantId, email: i.email, role: i.role, status: invitationStatus(i, now), invited_by: i.invitedBy,
    expires_at: iso(i.expiresAt), ...(i.acceptedAt ? { accepted_at: iso(i.acceptedAt) } : {}), created_at: iso(i.createdAt),
  };
}
