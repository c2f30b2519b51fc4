// Turning a credential into an Auth, with the spec's messages (part 7 "Authentication and access").
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../platform/db/index.ts';
import { forbidden, tooManyRequests, unauthorized } from '../platform/errors.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/logger.ts';
import { apiKeys, merchants, sessions, users, type ApiKeyRow } from './schema.ts';
import { hashSecret, type KeyAccess } from './api-keys.ts';
import { SUSPENDED, type Merchant } from './merchant.ts';
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
/** last_used_at may lag a use by up to 5 seconds (CONTRACT.md): write it at most that often per key. */
const LAST_USED_EVERY_MS = 4000;

/** How long a looked-up API key may be reused by this process (see #keyAndMerchant). */
export const KEY_CACHE_MS = 1000;
const KEY_CACHE_MAX = 10_000;

interface CachedKey {
  key: ApiKeyRow;
  merchant: Merchant;
  until: number;
}

export class Authenticator {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #limiter: RateLimiter;
  readonly #tokens: AccessTokens;
  readonly #log: Logger;
  readonly #lastUsedWritten = new Map<string, number>();
  readonly #keyCache = new Map<string, CachedKey>();
  readonly #keyCacheMs: number;
  #generation = 0;
  /** The key lookup and the last-use write, built once: Drizzle's query building costs more than the query on the hot path. */
  readonly #lookup;
  readonly #touchQuery;

  constructor(db: Database, clock: Clock, limiter: RateLimiter, tokens: AccessTokens, log: Logger, opts: { keyCacheMs?: number } = {}) {
    this.#keyCacheMs = opts.keyCacheMs ?? KEY_CACHE_MS;
    this.#db = db;
    this.#clock = clock;
    this.#limiter = limiter;
    this.#tokens = tokens;
    this.#log = log;
    this.#lookup = db.orm.select({ key: apiKeys, merchant: merchants }).from(apiKeys)
      .innerJoin(merchants, eq(merchants.id, apiKeys.merchantId))
      .where(eq(apiKeys.secretHash, sql.placeholder('hash'))).limit(1)
      .prepare('accounts_key_lookup');
    this.#touchQuery = db.orm.update(apiKeys).set({ lastUsedAt: sql.placeholder('at') as unknown as Date })
      .where(eq(apiKeys.id, sql.placeholder('id'))).prepare('accounts_key_touch');
  }

  /** `readAllowed`: the route is one of the four a read-only key may GET. */
  async apiKey(secret: string | undefined, opts: { method: string; readAllowed: boolean }): Promise<ApiKeyAuth> {
    if (!secret) throw unauthorized(MISSING_API_KEY);
    const row = await this.#keyAndMerchant(hashSecret(secret));
    if (!row || row.key.revokedAt) throw unauthorized(INVALID_API_KEY);
    const now = this.#clock.now();
    if (!(await this.#limiter.take(`key:${row.key.id}`, API_KEY_RATE.limit, API_KEY_RATE.windowMs, now.getTime()))) throw tooManyRequests();
    if (row.merchant.status === 'suspended') throw forbidden(SUSPENDED);
    if (row.key.livemode && !row.merchant.liveEnabled) throw forbidden(LIVE_MODE_OFF);
    if (row.key.access === 'read' && !(opts.method === 'GET' && opts.readAllowed)) throw forbidden(READ_ONLY_KEY);
    this.#touch(row.key.id, now);
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

  /**
   * The key and its merchant, from a short in-process cache (KEY_CACHE_MS). A revocation, live-mode,
   * settings or status change made through this process evicts at once (forgetKey/forgetMerchant);
   * one made by another process is seen here within KEY_CACHE_MS. A lookup that raced an eviction
   * is not cached (generation check), so an evicted row cannot come back.
   */
  async #keyAndMerchant(hash: string): Promise<CachedKey | null> {
    const t = performance.now();
    const hit = this.#keyCache.get(hash);
    if (hit && hit.until > t) return hit;
    const generation = this.#generation;
    const [row] = await this.#lookup.execute({ hash });
    if (!row) return null;
    const entry = { ...row, until: t + this.#keyCacheMs };
    if (this.#keyCacheMs > 0 && generation === this.#generation) {
      if (this.#keyCache.size >= KEY_CACHE_MAX) this.#keyCache.clear();
      this.#keyCache.set(hash, entry);
    }
    return entry;
  }

  /** Evicts one key (by its secret hash) after a revocation. */
  forgetKey(secretHash: string): void {
    this.#generation++;
    this.#keyCache.delete(secretHash);
  }

  /** Evicts every cached key of a merchant after its live mode, settings or status changed. */
  forgetMerchant(merchantId: string): void {
    this.#generation++;
    for (const [hash, e] of this.#keyCache) if (e.merchant.id === merchantId) this.#keyCache.delete(hash);
  }

  #touch(keyId: string, now: Date): void {
    const last = this.#lastUsedWritten.get(keyId) ?? 0;
    if (now.getTime() - last < LAST_USED_EVERY_MS) return;
    this.#lastUsedWritten.set(keyId, now.getTime());
    this.#touchQuery.execute({ at: now, id: keyId })
      .catch((err: unknown) => this.#log.warn({ err }, 'could not record api key use'));
  }
}
