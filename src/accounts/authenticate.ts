// Turning a credential into an Auth, with the spec's messages (part 7 "Authentication and access").
import { and, eq } from 'drizzle-orm';
import type { Database } from '../platform/db/index.ts';
import { forbidden, tooManyRequests, unauthorized } from '../platform/errors.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/logger.ts';
import { merchants, sessions, users } from './schema.ts';
import { ApiKeyCache } from './key-cache.ts';
import type { ChangeFeed } from '../platform/db/change-feed.ts';
import { KeyUseRecorder } from './key-uses.ts';
import { hashSecret, type KeyAccess } from './api-keys.ts';
import { SUSPENDED } from './merchant.ts';
import type { AccessTokens } from './access-tokens.ts';
import type { ApiKeyAuth, UserAuth } from './auth-context.ts';
import { isRole } from './roles.ts';

export const MISSING_API_KEY = 'missing api key';
export const INVALID_API_KEY = 'invalid api key';
export const LIVE_MODE_OFF = 'live mode is off for this account: the owner can turn it on in the dashboard; until then use a test key';
export const READ_ONLY_KEY = 'this api key is read-only: it can only read (GET)';
export const MISSING_TOKEN = 'missing token';
export const INVALID_TOKEN = 'invalid or expired token';

export const API_KEY_RATE = { limit: 20, windowMs: 1000 };

export class Authenticator {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #limiter: RateLimiter;
  readonly #tokens: AccessTokens;
  readonly #log: Logger;
  readonly #keys: ApiKeyCache;
  readonly #uses: KeyUseRecorder;

  constructor(db: Database, clock: Clock, limiter: RateLimiter, tokens: AccessTokens, log: Logger, opts: { keyCacheMs?: number } = {}) {
    this.#keys = new ApiKeyCache(db, { ttlMs: opts.keyCacheMs });
    this.#db = db;
    this.#clock = clock;
    this.#limiter = limiter;
    this.#tokens = tokens;
    this.#log = log;
    this.#uses = new KeyUseRecorder(db, log);
  }

  /** `readAllowed`: the route is one of the four a read-only key may GET. */
  async apiKey(secret: string | undefined, opts: { method: string; readAllowed: boolean }): Promise<ApiKeyAuth> {
    if (!secret) throw unauthorized(MISSING_API_KEY);
    const row = await this.#keys.get(hashSecret(secret));
    if (!row || row.key.revokedAt) throw unauthorized(INVALID_API_KEY);
    const now = this.#clock.now();
    if (!(await this.#limiter.take(`key:${row.key.id}`, API_KEY_RATE.limit, API_KEY_RATE.windowMs, now.getTime()))) throw tooManyRequests(API_KEY_RATE.windowMs);
    if (row.merchant.status === 'suspended') throw forbidden(SUSPENDED);
    if (row.key.livemode && !row.merchant.liveEnabled) throw forbidden(LIVE_MODE_OFF);
    if (row.key.access === 'read' && !(opts.method === 'GET' && opts.readAllowed)) throw forbidden(READ_ONLY_KEY);
    this.#uses.record(row.key.id, now);
    return {
      kind: 'api_key', keyId: row.key.id, merchantId: row.key.merchantId, livemode: row.key.livemode,
      storeId: row.key.storeId, access: row.key.access as KeyAccess, merchant: row.merchant,
    };
  }

  async user(bearer: string | undefined): Promise<UserAuth> {
    if (!bearer) throw unauthorized(MISSING_TOKEN);
    const now = this.#clock.now();
    const claims = await this.#tokens.verify(bearer, now);
    if (!claims) throw unauthorized(INVALID_TOKEN);
    const [row] = await this.#db.orm.select({ user: users, merchant: merchants, session: sessions }).from(users)
      .innerJoin(merchants, eq(merchants.id, users.merchantId))
      .innerJoin(sessions, and(eq(sessions.id, claims.sessionId), eq(sessions.userId, users.id)))
      .where(eq(users.id, claims.userId)).limit(1);
    // A removed member, or a session ended by sign-out, password or role change, has no valid token.
    if (!row || row.session.revokedAt || !isRole(row.user.role)) throw unauthorized(INVALID_TOKEN);
    if (row.merchant.status === 'suspended') throw forbidden(SUSPENDED);
    return {
      kind: 'user', userId: row.user.id, merchantId: row.user.merchantId, sessionId: claims.sessionId,
      role: row.user.role, email: row.user.email, tokenExpiresAt: claims.expiresAt, merchant: row.merchant,
    };
  }

  /** Why a session ended (its `revoked_reason`: `removed`, `role_changed`, `logout`…); null while open or unknown. */
  async sessionEnd(sessionId: string): Promise<string | null> {
    const [row] = await this.#db.orm.select({ reason: sessions.revokedReason, at: sessions.revokedAt }).from(sessions).where(eq(sessions.id, sessionId)).limit(1);
    return row?.at ? (row.reason ?? 'revoked') : null;
  }

  /** Drops keys revoked, and those of merchants whose access changed, in other processes as the database announces them (ApiKeyCache.follow). */
  followAccessChanges(feed: ChangeFeed): void {
    this.#keys.follow(feed);
  }

  /** Evicts one key (by its secret hash) after a revocation. */
  forgetKey(secretHash: string): void {
    this.#keys.forget(secretHash);
  }

  /** Evicts every cached key of a merchant after its live mode, settings or status changed. */
  forgetMerchant(merchantId: string): void {
    this.#keys.forgetMerchant(merchantId);
  }

  /** Writes the key uses not yet written (shutdown). */
  close(): Promise<void> {
    return this.#uses.flush();
  }
}
