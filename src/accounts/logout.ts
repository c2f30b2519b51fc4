// Sign-out (spec 4.4 Session). The credential is the access token in Authorization (what every
// other dashboard route takes), or else the refresh cookie, which the browser sends to
// /merchant/auth by itself, so a page whose access token has expired can still sign out. Either
// names one session: `logout` ends it, `logout-all` ends every session of its user. A refresh
// cookie already exchanged for a newer one is reuse: the session ends and the answer is a 401. A
// suspended account's sign-out answers 403 `merchant account is suspended`, as every dashboard route
// does (CONTRACT.md Access), yet still ends the sessions it names: a user signing out of a shared
// computer while the account is suspended must not find that session alive again once the account
// is reactivated.
import { and, eq, isNull } from 'drizzle-orm';
import { forbidden, unauthorized } from '../platform/errors.ts';
import type { Database, Executor } from '../platform/db/index.ts';
import { sessions } from './schema.ts';
import { SUSPENDED } from './merchant.ts';
import type { AccessTokens } from './access-tokens.ts';
import { endReusedSession, merchantSuspended, revokeSession, revokeUserSessions, sessionOfRefreshToken } from './sessions.ts';
import { INVALID_TOKEN, MISSING_TOKEN } from './authenticate.ts';
import { emitSessionsRevoked } from './socket-events.ts';

export const LOGGED_OUT = 'logged out';
export const ALL_SESSIONS_REVOKED = 'all sessions revoked';

export interface LogoutCredentials {
  bearer: string | undefined;
  cookie: string | undefined;
}

interface SessionRef {
  id: string;
  userId: string;
  merchantId: string;
}

async function sessionOfAccessToken(tx: Executor, tokens: AccessTokens, bearer: string, now: Date): Promise<SessionRef | null> {
  const claims = await tokens.verify(bearer, now);
  if (!claims) return null;
  const [row] = await tx.select({ id: sessions.id }).from(sessions)
    .where(and(eq(sessions.id, claims.sessionId), eq(sessions.userId, claims.userId), isNull(sessions.revokedAt))).limit(1);
  return row ? { id: row.id, userId: claims.userId, merchantId: claims.merchantId } : null;
}

export async function logout(db: Database, tokens: AccessTokens, creds: LogoutCredentials, all: boolean, now: Date): Promise<void> {
  if (!creds.bearer && !creds.cookie) throw unauthorized(MISSING_TOKEN);
  const outcome = await db.transaction(async (tx): Promise<'ended' | 'invalid' | 'suspended'> => {
    let s: SessionRef | null = creds.bearer ? await sessionOfAccessToken(tx, tokens, creds.bearer, now) : null;
    if (!s && creds.cookie) {
      const byCookie = await sessionOfRefreshToken(tx, creds.cookie, now);
      // A refresh token that was already exchanged is reuse (stolen or replayed), as on refresh:
      // the whole session ends, and the revocation commits before the 401.
      if (byCookie?.reused) {
        await endReusedSession(tx, byCookie, now);
        return 'invalid';
      }
      s = byCookie;
    }
    if (!s) return 'invalid';
    const ids = all ? await revokeUserSessions(tx, s.userId, 'logout_all', now) : [s.id];
    if (!all) await revokeSession(tx, s.id, 'logout', now);
    await emitSessionsRevoked(tx, s.merchantId, s.userId, ids, 'session_revoked', now);
    return (await merchantSuspended(tx, s.merchantId)) ? 'suspended' : 'ended';
  });
  if (outcome === 'suspended') throw forbidden(SUSPENDED);
  if (outcome !== 'ended') throw unauthorized(INVALID_TOKEN);
}
