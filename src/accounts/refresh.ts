// Exchanging the refresh cookie (spec 5 "Dashboard access tokens" 2). Each token works once: the
// exchange marks it replaced with a compare-and-set and issues the next one. A token presented again
// after its exchange (stolen, or replayed) ends the whole session: that revocation is committed
// before the 401 is answered.
import { and, eq, isNull } from 'drizzle-orm';
import { forbidden, unauthorized } from '../platform/errors.ts';
import type { Database } from '../platform/db/index.ts';
import { merchants, refreshTokens, sessions, users } from './schema.ts';
import { hashSecret } from './api-keys.ts';
import { endReusedSession, issueRefreshToken } from './sessions.ts';
import { SUSPENDED } from './merchant.ts';
import { INVALID_TOKEN } from './authenticate.ts';
import { isRole, type Role } from './roles.ts';

export const NO_REFRESH_TOKEN = 'no refresh token';

export interface Refreshed {
  userId: string;
  merchantId: string;
  sessionId: string;
  role: Role;
  refreshToken: string;
}

type Outcome = { ok: Refreshed } | { error: 'invalid' | 'suspended' };

export async function refreshSession(db: Database, token: string | undefined, now: Date): Promise<Refreshed> {
  if (!token) throw unauthorized(NO_REFRESH_TOKEN);
  const outcome = await db.transaction(async (tx): Promise<Outcome> => {
    const [row] = await tx.select({ token: refreshTokens, session: sessions, user: users, merchant: merchants }).from(refreshTokens)
      .innerJoin(sessions, eq(sessions.id, refreshTokens.sessionId))
      .leftJoin(users, eq(users.id, sessions.userId))
      .leftJoin(merchants, eq(merchants.id, sessions.merchantId))
      .where(eq(refreshTokens.tokenHash, hashSecret(token))).limit(1);
    if (!row) return { error: 'invalid' };
    const { session, user, merchant } = row;
    if (session.revokedAt || session.expiresAt.getTime() <= now.getTime() || !user || !merchant || !isRole(user.role)) return { error: 'invalid' };
    // A suspended account keeps its token unspent, so signing back in is not needed after reinstatement.
    if (merchant.status === 'suspended') return { error: 'suspended' };
    const [taken] = await tx.update(refreshTokens).set({ replacedAt: now })
      .where(and(eq(refreshTokens.tokenHash, row.token.tokenHash), isNull(refreshTokens.replacedAt))).returning({ h: refreshTokens.tokenHash });
    if (!taken) {
      await endReusedSession(tx, session, now);
      return { error: 'invalid' };
    }
    const refreshToken = await issueRefreshToken(tx, session.id, now);
    return { ok: { userId: user.id, merchantId: user.merchantId, sessionId: session.id, role: user.role, refreshToken } };
  });
  if ('ok' in outcome) return outcome.ok;
  if (outcome.error === 'suspended') throw forbidden(SUSPENDED);
  throw unauthorized(INVALID_TOKEN);
}
