// Sign-in sessions: an opaque refresh token in an httpOnly cookie, rotated on every use, stored
// hashed. Presenting a token that was already exchanged (reuse) revokes the whole session.
import { and, eq, isNull } from 'drizzle-orm';
import { newId, randomHex } from '../platform/ids.ts';
import type { Executor } from '../platform/db/index.ts';
import { hashSecret } from './api-keys.ts';
import { merchants, refreshTokens, sessions } from './schema.ts';
import { emitSessionsRevoked } from './socket-events.ts';

export const REFRESH_TTL_MS = 7 * 24 * 3600 * 1000;
export const REFRESH_COOKIE = 'refresh_token';
export const REFRESH_COOKIE_PATH = '/merchant/auth';

/** Whether the account is suspended (its members sign in, refresh and sign out to a 403). */
export async function merchantSuspended(ex: Executor, merchantId: string): Promise<boolean> {
  const [m] = await ex.select({ status: merchants.status }).from(merchants).where(eq(merchants.id, merchantId)).limit(1);
  return m?.status === 'suspended';
}

export async function openSession(tx: Executor, userId: string, merchantId: string, now: Date): Promise<{ sessionId: string; refreshToken: string }> {
  const sessionId = newId('ses', now);
  await tx.insert(sessions).values({ id: sessionId, userId, merchantId, createdAt: now, expiresAt: new Date(now.getTime() + REFRESH_TTL_MS) });
  const refreshToken = await issueRefreshToken(tx, sessionId, now);
  return { sessionId, refreshToken };
}

export async function issueRefreshToken(tx: Executor, sessionId: string, now: Date): Promise<string> {
  const token = randomHex(32);
  await tx.insert(refreshTokens).values({ tokenHash: hashSecret(token), sessionId, createdAt: now });
  return token;
}

export async function revokeSession(tx: Executor, sessionId: string, reason: string, now: Date): Promise<void> {
  await tx.update(sessions).set({ revokedAt: now, revokedReason: reason }).where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
}

/**
 * A refresh token presented again after its exchange (stolen, or replayed), on refresh or sign-out:
 * its whole session ends and its dashboard sockets are told. The caller answers 401 after the commit.
 */
export async function endReusedSession(tx: Executor, session: { id: string; userId: string; merchantId: string }, now: Date): Promise<void> {
  await revokeSession(tx, session.id, 'refresh_token_reused', now);
  await emitSessionsRevoked(tx, session.merchantId, session.userId, [session.id], 'session_revoked', now);
}

/** Ends every open session of a user (password change, role change, removal); returns their ids. */
export async function revokeUserSessions(tx: Executor, userId: string, reason: string, now: Date): Promise<string[]> {
  const rows = await tx.update(sessions).set({ revokedAt: now, revokedReason: reason })
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt))).returning({ id: sessions.id });
  return rows.map((r) => r.id);
}

/**
 * The open session a refresh token belongs to (sign-out with the cookie); null when unknown or ended.
 * `reused` is true when the token was already exchanged: the caller treats that like a refresh would.
 */
export async function sessionOfRefreshToken(tx: Executor, token: string, now: Date): Promise<{ id: string; userId: string; merchantId: string; reused: boolean } | null> {
  const [row] = await tx.select({
    id: sessions.id, userId: sessions.userId, merchantId: sessions.merchantId, revokedAt: sessions.revokedAt, expiresAt: sessions.expiresAt,
    replacedAt: refreshTokens.replacedAt,
  })
    .from(refreshTokens).innerJoin(sessions, eq(sessions.id, refreshTokens.sessionId))
    .where(eq(refreshTokens.tokenHash, hashSecret(token))).limit(1);
  if (!row || row.revokedAt || row.expiresAt.getTime() <= now.getTime()) return null;
  return { id: row.id, userId: row.userId, merchantId: row.merchantId, reused: row.replacedAt !== null };
}
