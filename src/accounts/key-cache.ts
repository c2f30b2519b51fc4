// API keys with their merchant, kept briefly in process so a request rarely waits for a lookup.
//
// An entry is served only until KEY_CACHE_MS after the database read it came from: a suspension or
// settings change made by another process is seen here within that time. One made through this
// process evicts at once (forget/forgetMerchant). A revocation (spec 7: immediate), a suspension or
// reinstatement and a live mode switched, made by another process, evict at once too while the
// change feed listens (follow(): the database announces them on API_KEY_REVOKED_CHANNEL and
// MERCHANT_ACCESS_CHANGED_CHANNEL, migrations/1330 and 1340); without the feed, within KEY_CACHE_MS.
//
// Under load the same keys come back many times a second, and each expiry used to cost the next
// request a lookup of its own. Now:
// - a key used in the last REFRESH_AHEAD_MS of its entry is read again in the background while the
//   entry still answers, so a busy key never makes a request wait;
// - lookups are grouped: the misses of one turn of the event loop, and the refreshes of a short
//   window, go to the database as one query (`secret_hash = any(...)`).
// A read that raced an eviction is not cached (generation check), so an evicted row cannot come back.
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../platform/db/index.ts';
import { apiKeys, merchants, type ApiKeyRow } from './schema.ts';
import type { Merchant } from './merchant.ts';
import type { ChangeFeed } from '../platform/db/change-feed.ts';

/** The database's notice of a revoked key; payload its secret hash (migrations/1330_api_key_revoked.sql). */
export const API_KEY_REVOKED_CHANNEL = 'api_key_revoked';
/** The database's notice of a merchant suspended, reinstated or its live mode switched; payload its id (migrations/1340). */
export const MERCHANT_ACCESS_CHANGED_CHANNEL = 'merchant_access_changed';

/** How long a read key may be served (cross-process staleness bound). */
export const KEY_CACHE_MS = 1000;
/** A key used this close to its entry's end is read again in the background. */
export const REFRESH_AHEAD_MS = 300;
/** Background refreshes wait this long to go together (well inside REFRESH_AHEAD_MS). */
const REFRESH_GATHER_MS = 20;
const KEY_CACHE_MAX = 10_000;

export interface KeyAndMerchant {
  key: ApiKeyRow;
  merchant: Merchant;
}

interface Entry extends KeyAndMerchant {
  /** performance.now() after which the entry is not served. */
  until: number;
  refreshing: boolean;
}

interface Waiting {
  resolve: (row: KeyAndMerchant | null) => void;
  reject: (err: unknown) => void;
}

export class ApiKeyCache {
  readonly #ttlMs: number;
  #feed: ChangeFeed | null = null;
  readonly #entries = new Map<string, Entry>();
  #generation = 0;
  /** Hashes to read in the next query, each with whoever waits for it. */
  #pending = new Map<string, Waiting[]>();
  #flushAt: 'tick' | 'window' | null = null;
  readonly #lookup;
  /** Lookup queries sent so far (each reads one or more keys). */
  lookups = 0;

  constructor(db: Database, opts: { ttlMs?: number } = {}) {
    this.#ttlMs = opts.ttlMs ?? KEY_CACHE_MS;
    // Built once: Drizzle's query building costs more than the query on the hot path.
    this.#lookup = db.orm.select({ key: apiKeys, merchant: merchants }).from(apiKeys)
      .innerJoin(merchants, eq(merchants.id, apiKeys.merchantId))
      .where(sql`${apiKeys.secretHash} = any(${sql.placeholder('hashes')})`)
      .prepare('accounts_key_lookup_many');
  }

  /** The key of this secret hash with its merchant, or null when no key has it. */
  async get(hash: string): Promise<KeyAndMerchant | null> {
    if (this.#feed && !this.#feed.active) this.#feed.start();
    const now = performance.now();
    const hit = this.#entries.get(hash);
    if (hit && hit.until > now) {
      if (this.#ttlMs > 0 && hit.until - now < REFRESH_AHEAD_MS && !hit.refreshing) this.#refresh(hash, hit);
      return hit;
    }
    return this.#read(hash, 'tick');
  }

  /**
   * Drops keys revoked, and the keys of merchants suspended, reinstated or switched in or out of
   * live mode, by any process as the database announces them, from `feed` (which must listen on
   * API_KEY_REVOKED_CHANNEL and MERCHANT_ACCESS_CHANGED_CHANNEL; started on the first key asked
   * for). A feed that is not listening misses notices: the cache time still bounds what this
   * process serves.
   */
  follow(feed: ChangeFeed): void {
    this.#feed = feed;
    feed.subscribe({
      changed: (channel, payload) => {
        if (channel === API_KEY_REVOKED_CHANNEL) this.forget(payload);
        else if (channel === MERCHANT_ACCESS_CHANGED_CHANNEL) this.forgetMerchant(payload);
      },
      reset: () => {},
    });
  }

  /** Evicts one key (by its secret hash) after a revocation. */
  forget(hash: string): void {
    this.#generation++;
    this.#entries.delete(hash);
  }

  /** Evicts every cached key of a merchant after its live mode, settings or status changed. */
  forgetMerchant(merchantId: string): void {
    this.#generation++;
    for (const [hash, e] of this.#entries) if (e.merchant.id === merchantId) this.#entries.delete(hash);
  }

  #refresh(hash: string, entry: Entry): void {
    entry.refreshing = true;
    // A failed refresh leaves the entry to expire; the next use reads the key itself.
    this.#read(hash, 'window').catch(() => {}).finally(() => { entry.refreshing = false; });
  }

  /** Reads one key with the others asked for meanwhile, and caches what it finds. */
  #read(hash: string, when: 'tick' | 'window'): Promise<KeyAndMerchant | null> {
    return new Promise((resolve, reject) => {
      const waiting = this.#pending.get(hash);
      if (waiting) waiting.push({ resolve, reject });
      else this.#pending.set(hash, [{ resolve, reject }]);
      this.#scheduleFlush(when);
    });
  }

  #scheduleFlush(when: 'tick' | 'window'): void {
    // A request waiting for its key is read after this turn; refreshes alone may gather longer.
    if (this.#flushAt === 'tick' || this.#flushAt === when) return;
    this.#flushAt = when;
    if (when === 'tick') setImmediate(() => this.#flush('tick'));
    else setTimeout(() => this.#flush('window'), REFRESH_GATHER_MS).unref();
  }

  async #flush(from: 'tick' | 'window'): Promise<void> {
    // An earlier flush took everything already; a later one of another kind finds its own batch.
    if (this.#flushAt !== from) return;
    this.#flushAt = null;
    const batch = this.#pending;
    if (batch.size === 0) return;
    this.#pending = new Map();
    const generation = this.#generation;
    const readAt = performance.now();
    this.lookups++;
    let rows: KeyAndMerchant[];
    try {
      rows = await this.#lookup.execute({ hashes: [...batch.keys()] });
    } catch (err) {
      for (const waiting of batch.values()) for (const w of waiting) w.reject(err);
      return;
    }
    const found = new Map(rows.map((r) => [r.key.secretHash, r]));
    const cache = this.#ttlMs > 0 && generation === this.#generation;
    for (const [hash, waiting] of batch) {
      const row = found.get(hash) ?? null;
      if (cache) {
        if (row) {
          if (this.#entries.size >= KEY_CACHE_MAX && !this.#entries.has(hash)) this.#entries.clear();
          this.#entries.set(hash, { ...row, until: readAt + this.#ttlMs, refreshing: false });
        } else {
          this.#entries.delete(hash);
        }
      }
      for (const w of waiting) w.resolve(row);
    }
  }
}
