// Whether a queued mail may still go, and to which address. A row is a copy made when its
// notification was dispatched; the team may have changed since (a retry can come a day later), so
// the worker asks again just before each attempt: the member still exists and is on the merchant's
// team, their role still sees the category, they still want such mail, the merchant is not
// suspended. A mail that may not go is dropped as `skipped`, the reason in last_error (README
// "E-mail"). The address is the member's at send time, not the copy's.
//
// An invitation's mail goes to the invited address while the invitation is still pending (not
// revoked, accepted or expired), the merchant not suspended and the address without an account of
// its own by now (one address is one account: accepting would answer 409): a dead link is never mailed.
import { eq } from 'drizzle-orm';
import type { Database } from '../platform/db/index.ts';
import { invitationStatus, invitations, merchants, users, type Role } from '../accounts/index.ts';
import { notifications, rolesOf } from '../notifications/index.ts';
import { preferencesFrom, wantsMail } from './preferences.ts';
import { mailPreferences, mailQueue, type MailKind } from './schema.ts';

export const SKIP_NOT_ON_TEAM = 'the member is no longer on the team';
export const SKIP_ROLE = "the member's role does not see this notification";
export const SKIP_UNWANTED = 'the member turned this mail off';
export const SKIP_SUSPENDED = 'the merchant is suspended';

export const SKIP_INVITATION_REVOKED = 'the invitation was revoked';
export const SKIP_INVITATION_ACCEPTED = 'the invitation was accepted';
export const SKIP_INVITATION_EXPIRED = 'the invitation has expired';
export const SKIP_INVITEE_REGISTERED = 'the invited address has an account by now';

export type Recipient = { address: string } | { skip: string };

export function recipientNow(db: Database, mail: { id: string; kind: MailKind }, now: Date): Promise<Recipient> {
  return mail.kind === 'invitation' ? invitee(db, mail.id, now) : member(db, mail.id);
}

async function invitee(db: Database, mailId: string, now: Date): Promise<Recipient> {
  const [r] = await db.orm.select({ merchantStatus: merchants.status, inv: invitations })
    .from(mailQueue)
    .innerJoin(merchants, eq(merchants.id, mailQueue.merchantId))
    .leftJoin(invitations, eq(invitations.id, mailQueue.invitationId))
    .where(eq(mailQueue.id, mailId)).limit(1);
  if (r?.merchantStatus === 'suspended') return { skip: SKIP_SUSPENDED };
  if (!r?.inv) return { skip: SKIP_INVITATION_REVOKED };
  // the invitation's status as its API shows it (a pending one past expires_at is expired)
  const status = invitationStatus(r.inv, now);
  if (status === 'pending') {
    const [account] = await db.orm.select({ id: users.id }).from(users).where(eq(users.email, r.inv.email)).limit(1);
    return account ? { skip: SKIP_INVITEE_REGISTERED } : { address: r.inv.email };
  }
  return { skip: status === 'accepted' ? SKIP_INVITATION_ACCEPTED : status === 'revoked' ? SKIP_INVITATION_REVOKED : SKIP_INVITATION_EXPIRED };
}

async function member(db: Database, mailId: string): Promise<Recipient> {
  const [r] = await db.orm.select({
    merchantId: mailQueue.merchantId, category: notifications.category, title: notifications.title, merchantStatus: merchants.status,
    user: { email: users.email, role: users.role, merchantId: users.merchantId }, pref: mailPreferences,
  }).from(mailQueue)
    .innerJoin(notifications, eq(notifications.id, mailQueue.notificationId))
    .innerJoin(merchants, eq(merchants.id, mailQueue.merchantId))
    .leftJoin(users, eq(users.id, mailQueue.userId))
    .leftJoin(mailPreferences, eq(mailPreferences.userId, mailQueue.userId))
    .where(eq(mailQueue.id, mailId)).limit(1);
  if (r?.merchantStatus === 'suspended') return { skip: SKIP_SUSPENDED };
  if (!r?.user || r.user.merchantId !== r.merchantId) return { skip: SKIP_NOT_ON_TEAM };
  if (!rolesOf(r.category).includes(r.user.role as Role)) return { skip: SKIP_ROLE };
  if (!wantsMail(preferencesFrom(r.pref), r.category, r.title)) return { skip: SKIP_UNWANTED };
  return { address: r.user.email };
}
