// Sign-in (spec 4.4 Session, 7). A wrong email and a wrong password answer alike and take the same
// time (an unknown email still runs scrypt). The suspension is told only to someone who knows the
// password, so it never reveals that an email exists.
import { and, eq } from 'drizzle-orm';
import { badRequest, forbidden, unauthorized } from '../platform/errors.ts';
import type { Database } from '../platform/db/index.ts';
import { merchants, users, type UserRow } from './schema.ts';
import { hashPassword, needsRehash, readHash, verifyAgainstNobody, verifyHash } from './passwords.ts';
import { openSession } from './sessions.ts';
import { SUSPENDED } from './merchant.ts';
import { requireEmail } from './validate.ts';
import { isRole, type Role } from './roles.ts';

export const CREDENTIALS_REQUIRED = 'email and password are required';
export const INVALID_CREDENTIALS = 'invalid credentials';

export interface SignedIn {
  user: UserRow;
  role: Role;
  sessionId: string;
  refreshToken: string;
}

const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

export async function login(db: Database, body: Record<string, unknown>, now: Date): Promise<SignedIn> {
  if (!present(body.email) || !present(body.password)) throw badRequest(CREDENTIALS_REQUIRED);
  const email = requireEmail(body.email);
  if (typeof body.password !== 'string') throw unauthorized(INVALID_CREDENTIALS);
  const password = body.password;
  const [row] = await db.orm.select({ user: users, merchant: merchants }).from(users)
    .innerJoin(merchants, eq(merchants.id, users.merchantId)).where(eq(users.email, email)).limit(1);
  const stored = row ? readHash(row.user.passwordHash) : null;
  const ok = row ? await verifyHash(password, stored) : await verifyAgainstNobody(password);
  if (!row || !ok || !isRole(row.user.role)) throw unauthorized(INVALID_CREDENTIALS);
  if (row.merchant.status === 'suspended') throw forbidden(SUSPENDED);
  // a hash made at a lower cost is made again at the current one now that the password is known
  const upgraded = needsRehash(stored) ? await hashPassword(password) : null;
  return db.transaction(async (tx) => {
    // Only over the hash that was checked: a member removed, or a password changed, while this
    // sign-in was being checked gets no session (the change ended every session; this one would
    // outlive it).
    const [user] = await tx.update(users).set({ lastLoginAt: now, ...(upgraded ? { passwordHash: upgraded } : {}) })
      .where(and(eq(users.id, row.user.id), eq(users.passwordHash, row.user.passwordHash))).returning();
    if (!user || !isRole(user.role)) throw unauthorized(INVALID_CREDENTIALS);
    const s = await openSession(tx, user.id, user.merchantId, now);
    return { user, role: user.role, ...s };
  });
}
