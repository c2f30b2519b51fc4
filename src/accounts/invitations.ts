// Invitations to the team (CONTRACT.md "Invitations"; owners): a one-time token shown once in
// `accept_url`, stored as its SHA-256 only, valid 7 days. Accepting it makes the member and signs
// them in, in one transaction with the invitation's use (a token works once, even when two
// accepts race), after the account's team changes under way (the team lock). A new invitation to
// the same email replaces a pending one. With e-mail configured, the mail room joins the
// invitation's transaction (InvitationHook) and queues the mail of the link.
import { and, desc, eq } from 'drizzle-orm';
import type { Database, Executor, Tx } from '../platform/db/index.ts';
import { badRequest, conflict, forbidden, notFound } from '../platform/errors.ts';
import { newId, randomHex } from '../platform/ids.ts';
import { isIdShaped } from '../platform/fields.ts';
import { refuseNul } from '../platform/text-input.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { invitations, users, type InvitationRow, type UserRow } from './schema.ts';
import { lockTeam, lockTeamAsOwner } from './team-lock.ts';
import { hashSecret } from './api-keys.ts';
import { hashPassword } from './passwords.ts';
import { merchantSuspended, openSession } from './sessions.ts';
import { SUSPENDED } from './merchant.ts';
import { userJson } from './users.ts';
import { requireRole } from './team.ts';
import { EMAIL_TAKEN, requireEmail, requireNewPassword } from './validate.ts';
import { emitTeamChange } from './socket-events.ts';
import { revokePendingInvitations, toEmail } from './pending-invitations.ts';
import { noticeTeam } from './notices.ts';
import { invitationJson } from './invitation-json.ts';
import type { Role } from './roles.ts';
import type { RequestOrigin } from '../audit/index.ts';

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
export const INVITATION_INVALID = 'invitation is no longer valid';
export const INVITATION_REVOKED = 'invitation revoked';
export const ONLY_PENDING_REVOKED = 'only a pending invitation can be revoked: this one was accepted';
/** Where the dashboard's accept page reads the token: the URL fragment, which browsers never send to a server. */
export const acceptUrl = (publicUrl: string, token: string): string => `${publicUrl}/invitations/accept#token=${token}`;

/** What another room learns of a new invitation, inside its transaction: the token only here, in memory. */
export interface InvitationSent { invitation: InvitationRow; token: string; inviter: Actor; at: Date }
/**
 * The mail room's part of an invitation (README "E-mail"): `queue` in the invitation's transaction
 * (the mail commits with it or not at all), `committed` once it has.
 */
export interface InvitationHook {
  queue(tx: Tx, s: InvitationSent): Promise<void>;
  committed(): void;
}

const emailOf = (v: unknown): string => requireEmail(typeof v === 'string' ? refuseNul('email', v) : v);

const emailTaken = async (ex: Executor, email: string): Promise<boolean> =>
  (await ex.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1)).length > 0;

export async function createInvitation(db: Database, merchantId: string, body: Record<string, unknown>, actor: Actor, now: Date, hook?: InvitationHook): Promise<{ row: InvitationRow; token: string }> {
  const email = emailOf(body.email);
  const role = requireRole(body.role);
  if (await emailTaken(db.orm, email)) throw conflict(EMAIL_TAKEN);
  const token = randomHex(32);
  const created = await db.transaction(async (tx) => {
    // Two invitations of one email at once run one after the other, so the second replaces the
    // first (otherwise both stay pending, two valid links).
    // A member's word stands while they are an owner: removed or demoted since the route let them in, nothing is made.
    await lockTeamAsOwner(tx, merchantId, actor);
    // Again under the lock: a member added with this email meanwhile (POST /merchant/users takes it too).
    if (await emailTaken(tx, email)) throw conflict(EMAIL_TAKEN);
    // The pending one it replaces is revoked like any other (audited, told to the owners); one
    // past its 7 days is expired, and stays so.
    const id = newId('inv', now);
    await revokePendingInvitations(tx, merchantId, toEmail(email), actor, `replaced by invitation ${id}`, now);
    const [row] = await tx.insert(invitations).values({
      id, merchantId, email, role, tokenHash: hashSecret(token), status: 'pending', invitedBy: actor.id ?? 'unknown',
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS), acceptedAt: null, revokedAt: null, userId: null, createdAt: now,
    }).returning();
    await recordAudit(tx, { merchantId, action: 'invitation.created', actor, subject: row.id, after: invitationJson(row, now), at: now });
    await emitTeamChange(tx, merchantId, 'invited', { invitation: row }, now);
    await hook?.queue(tx, { invitation: row, token, inviter: actor, at: now });
    return { row, token };
  });
  hook?.committed();
  return created;
}

/** Every invitation of the account (pending, accepted, revoked, expired), newest first. */
export function listInvitations(db: Database, merchantId: string): Promise<InvitationRow[]> {
  return db.orm.select().from(invitations).where(eq(invitations.merchantId, merchantId)).orderBy(desc(invitations.createdAt), desc(invitations.id));
}

/** Revokes a pending (or expired) invitation; revoking it again changes nothing; an accepted one answers 409. */
export async function revokeInvitation(db: Database, merchantId: string, id: string, actor: Actor, now: Date): Promise<void> {
  if (!isIdShaped(id)) throw notFound();
  await db.transaction(async (tx) => {
    const [before] = await tx.select().from(invitations).where(and(eq(invitations.id, id), eq(invitations.merchantId, merchantId))).for('update');
    if (!before) throw notFound();
    if (before.status === 'accepted') throw conflict(ONLY_PENDING_REVOKED);
    if (before.status === 'revoked') return;
    const [row] = await tx.update(invitations).set({ status: 'revoked', revokedAt: now }).where(eq(invitations.id, id)).returning();
    await recordAudit(tx, { merchantId, action: 'invitation.revoked', actor, subject: id, before: invitationJson(before, now), after: invitationJson(row, now), at: now });
    await emitTeamChange(tx, merchantId, 'invitation_revoked', { invitation: row }, now);
  });
}

export interface Accepted { user: UserRow; role: Role; sessionId: string; refreshToken: string }

/**
 * `POST /merchant/invitations/accept {token, password}`: the new member, signed in; the `user.added`
 * entry's actor is that member, with the request's `origin`.
 */
export async function acceptInvitation(db: Database, body: Record<string, unknown>, now: Date, origin: RequestOrigin): Promise<Accepted> {
  const password = requireNewPassword(body.password);
  if (typeof body.token !== 'string' || body.token === '') throw badRequest(INVITATION_INVALID);
  const tokenHash = hashSecret(body.token);
  const passwordHash = await hashPassword(password);
  return db.transaction(async (tx) => {
    const [found] = await tx.select({ merchantId: invitations.merchantId }).from(invitations).where(eq(invitations.tokenHash, tokenHash));
    if (!found) throw badRequest(INVITATION_INVALID);
    // A team change of the account under way (its inviter removed or demoted, its email added) revokes
    // the invitation in its transaction: the accept waits for it, then reads the invitation again.
    await lockTeam(tx, found.merchantId);
    const [inv] = await tx.select().from(invitations).where(eq(invitations.tokenHash, tokenHash)).for('update');
    if (!inv || inv.status !== 'pending' || inv.expiresAt.getTime() <= now.getTime()) throw badRequest(INVITATION_INVALID);
    if (await merchantSuspended(tx, inv.merchantId)) throw forbidden(SUSPENDED);
    const [user] = await tx.insert(users).values({
      id: newId('usr', now), merchantId: inv.merchantId, email: inv.email, passwordHash, role: inv.role, createdAt: now, lastLoginAt: now,
    }).onConflictDoNothing().returning();
    if (!user) throw conflict(EMAIL_TAKEN);
    const [accepted] = await tx.update(invitations).set({ status: 'accepted', acceptedAt: now, userId: user.id }).where(eq(invitations.id, inv.id)).returning();
    const actor: Actor = { kind: 'merchant', id: user.id, merchant_id: user.merchantId, email: user.email, role: user.role, ...origin };
    await recordAudit(tx, { merchantId: inv.merchantId, action: 'user.added', actor, subject: user.id, after: userJson(user), note: `accepted invitation ${inv.id}`, at: now });
    await emitTeamChange(tx, inv.merchantId, 'added', { user, invitation: accepted }, now);
    await noticeTeam(tx, user, { verb: 'added' }, now);
    const s = await openSession(tx, user.id, user.merchantId, now);
    return { user, role: requireRole(user.role), ...s };
  });
}
