// The team (spec 4.4 "Team", owner only). Changes that could leave no owner lock the merchant row
// first, so two concurrent demotions of the last two owners run one after the other and the second
// sees a single owner left.
import { and, asc, count, eq, ne } from 'drizzle-orm';
import { badRequest, conflict, notFound } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import type { Database, Tx } from '../platform/db/index.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { users, type UserRow } from './schema.ts';
import { lockTeamAsOwner } from './team-lock.ts';
import { hashPassword } from './passwords.ts';
import { isRole, ROLE_MESSAGE, type Role } from './roles.ts';
import { userJson } from './users.ts';
import { revokeUserSessions } from './sessions.ts';
import { EMAIL_TAKEN, isUniqueViolation, requireEmail, requireNewPassword } from './validate.ts';
import { emitSessionsRevoked, emitTeamUpdate } from './socket-events.ts';
import { noticeTeam } from './notices.ts';
import { byInviter, revokePendingInvitations, toEmail } from './pending-invitations.ts';

export const LAST_OWNER = 'the account must keep at least one owner';
export const USER_REMOVED = 'user removed';

export function requireRole(v: unknown): Role {
  if (!isRole(v)) throw badRequest(ROLE_MESSAGE);
  return v;
}

export function listUsers(db: Database, merchantId: string): Promise<UserRow[]> {
  return db.orm.select().from(users).where(eq(users.merchantId, merchantId)).orderBy(asc(users.createdAt), asc(users.id));
}

export async function addUser(db: Database, merchantId: string, body: Record<string, unknown>, actor: Actor, now: Date): Promise<UserRow> {
  const email = requireEmail(body.email);
  const password = requireNewPassword(body.password);
  const role = requireRole(body.role);
  const passwordHash = await hashPassword(password);
  try {
    return await db.transaction(async (tx) => {
      // After an invitation to this email being made meanwhile, which is revoked here; and only while
      // the member adding is still an owner.
      await lockTeamAsOwner(tx, merchantId, actor);
      const [row] = await tx.insert(users).values({ id: newId('usr', now), merchantId, email, passwordHash, role, createdAt: now }).returning();
      await recordAudit(tx, { merchantId, action: 'user.added', actor, subject: row.id, after: userJson(row), at: now });
      await revokePendingInvitations(tx, merchantId, toEmail(email), actor, `${email} was added to the team as ${row.id}`, now);
      await emitTeamUpdate(tx, 'added', row, now);
      await noticeTeam(tx, row, { verb: 'added' }, now);
      return row;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(EMAIL_TAKEN);
    throw err;
  }
}

/** Locks the account (403 when the acting member is no longer an owner), then reads the member; 404 for a member of another account. */
async function lockedMember(tx: Tx, merchantId: string, userId: string, actor: Actor): Promise<UserRow> {
  await lockTeamAsOwner(tx, merchantId, actor);
  const [row] = await tx.select().from(users).where(and(eq(users.id, userId), eq(users.merchantId, merchantId))).limit(1);
  if (!row) throw notFound();
  return row;
}

async function otherOwners(tx: Tx, merchantId: string, userId: string): Promise<number> {
  const [r] = await tx.select({ n: count() }).from(users)
    .where(and(eq(users.merchantId, merchantId), eq(users.role, 'owner'), ne(users.id, userId)));
  return Number(r.n);
}

export async function changeRole(db: Database, merchantId: string, userId: string, body: Record<string, unknown>, actor: Actor, now: Date): Promise<UserRow> {
  const role = requireRole(body.role);
  return db.transaction(async (tx) => {
    const before = await lockedMember(tx, merchantId, userId, actor);
    if (before.role === role) return before;
    if (before.role === 'owner' && (await otherOwners(tx, merchantId, userId)) === 0) throw conflict(LAST_OWNER);
    const [row] = await tx.update(users).set({ role }).where(eq(users.id, userId)).returning();
    const ended = await revokeUserSessions(tx, userId, 'role_changed', now);
    await recordAudit(tx, { merchantId, action: 'user.role_changed', actor, subject: userId, before: userJson(before), after: userJson(row), at: now });
    await emitTeamUpdate(tx, 'role_changed', row, now);
    await noticeTeam(tx, row, { verb: 'role_changed', from: before.role }, now);
    await emitSessionsRevoked(tx, merchantId, userId, ended, 'role_changed', now);
    if (before.role === 'owner') await revokePendingInvitations(tx, merchantId, byInviter(userId), actor, `its inviter ${userId} was no longer an owner`, now);
    return row;
  });
}

/** Deletes the member (their email becomes free again); their sessions end, so a signed-in token stops at once. */
export async function removeUser(db: Database, merchantId: string, userId: string, actor: Actor, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const before = await lockedMember(tx, merchantId, userId, actor);
    if (before.role === 'owner' && (await otherOwners(tx, merchantId, userId)) === 0) throw conflict(LAST_OWNER);
    const ended = await revokeUserSessions(tx, userId, 'removed', now);
    await tx.delete(users).where(eq(users.id, userId));
    await recordAudit(tx, { merchantId, action: 'user.removed', actor, subject: userId, before: userJson(before), at: now });
    await emitTeamUpdate(tx, 'removed', before, now);
    await noticeTeam(tx, before, { verb: 'removed' }, now);
    await emitSessionsRevoked(tx, merchantId, userId, ended, 'removed', now);
    await revokePendingInvitations(tx, merchantId, byInviter(userId), actor, `its inviter ${userId} was removed`, now);
  });
}
