// Changing one's own password (spec 4.4 Session): every session of the user ends, this one included.
import { and, eq } from 'drizzle-orm';
import { badRequest, forbidden } from '../platform/errors.ts';
import type { Database } from '../platform/db/index.ts';
import { recordAudit, type Actor } from '../audit/index.ts';
import { users } from './schema.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { revokeUserSessions } from './sessions.ts';
import { requireNewPassword } from './validate.ts';
import { emitSessionsRevoked } from './socket-events.ts';
import type { Recheck } from './recheck-limit.ts';

export const PASSWORDS_REQUIRED = 'current_password and new_password are required';
export const WRONG_CURRENT_PASSWORD = 'current password is incorrect';
export const PASSWORD_CHANGED = 'password changed; sign in again';

const filled = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * `recheck` wraps the check of the current password alone (the member's limit of wrong passwords):
 * a body refused before that check answers its 400 even while the re-checks answer 429 (README
 * "Limits besides spec 8").
 */
export async function changePassword(
  db: Database, merchantId: string, userId: string, body: Record<string, unknown>, actor: Actor, now: Date,
  recheck: Recheck = (run) => run(),
): Promise<void> {
  if (!filled(body.current_password) || !filled(body.new_password)) throw badRequest(PASSWORDS_REQUIRED);
  const currentPassword = body.current_password;
  const newPassword = requireNewPassword(body.new_password);
  const user = await recheck(async () => {
    const [row] = await db.orm.select().from(users).where(eq(users.id, userId)).limit(1);
    if (!row || !(await verifyPassword(currentPassword, row.passwordHash))) throw forbidden(WRONG_CURRENT_PASSWORD);
    return row;
  });
  const passwordHash = await hashPassword(newPassword);
  await db.transaction(async (tx) => {
    // Only over the password that was checked: one changed meanwhile (another tab, or the member
    // while someone else holds a session) stays, and this change is refused like a wrong password.
    const [changed] = await tx.update(users).set({ passwordHash })
      .where(and(eq(users.id, userId), eq(users.passwordHash, user.passwordHash))).returning({ id: users.id });
    if (!changed) throw forbidden(WRONG_CURRENT_PASSWORD);
    const ended = await revokeUserSessions(tx, userId, 'password_changed', now);
    await recordAudit(tx, { merchantId, action: 'user.password_changed', actor, subject: userId, at: now });
    await emitSessionsRevoked(tx, merchantId, userId, ended, 'session_revoked', now);
  });
}
