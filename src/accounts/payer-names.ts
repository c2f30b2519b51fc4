// Who the payer is paying: the merchant's name, and the store's for a storefront key's payment
// (`merchant_name`, `store_name` in the payer's view and the checkout socket's `payment:update`).
//
// GET /checkout/{token} is a hot read, so the names never cost it a round trip of its own: they
// are kept in process. While the change feed listens (follow(); src/platform/db/change-feed.ts),
// a name read from the database is kept until it changes: a rename or removal is announced on
// `payer_name_changed` by the database (migrations/0660_change_reports.sql) to every process, and
// reported at once to the process that made it. A name read while a change came in serves the
// requests that waited for it, and is read again next time (it may predate the change).
// Without the feed (not yet listening, or a lost connection), a name read from the database is
// served for NAMES_CACHE_MS; one used in the last REFRESH_AHEAD_MS of that time is read again in the
// background, so a busy merchant's checkout never waits, and the process that dispatches the outbox
// takes a rename from the `merchant:update` / `store:update` event at once.
// Names missed in one turn of the event loop are read together in one query.
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../platform/db/index.ts';
import type { EventHead, StoredEvent, Subscriber } from '../events/index.ts';
import type { ChangeFeed } from '../platform/db/change-feed.ts';
import { MERCHANT_UPDATE, STORE_UPDATE } from './socket-events.ts';

/** The channel of a merchant's or store's rename or removal; payload `merchant:<id>` or `store:<id>`. */
export const PAYER_NAME_CHANGED_CHANNEL = 'payer_name_changed';
/** How long a name read from the database is served while the change feed is not listening. */
export const NAMES_CACHE_MS = 2000;
/** A name used this close to its entry's end is read again in the background. */
const REFRESH_AHEAD_MS = 500;
const MAX_ENTRIES = 10_000;

export interface PayerNames {
  merchant_name?: string;
  store_name?: string;
}

type Kind = 'merchant' | 'store';

interface Entry {
  name: string;
  /** The clock reading of the read (or event) it came from. */
  at: number;
  refreshing: boolean;
  /** Read while the change feed listened, with no change heard meanwhile: kept until it changes. */
  exact: boolean;
}

export class PayerNameCache {
  readonly #db: Database;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #entries: Record<Kind, Map<string, Entry>> = { merchant: new Map(), store: new Map() };
  #pending: Record<Kind, Set<string>> = { merchant: new Set(), store: new Set() };
  #next: Promise<void> | null = null;
  #feed: ChangeFeed | null = null;
  /** Moves on every change heard: a read that saw it move keeps nothing exact. */
  #generation = 0;
  /** Lookup queries sent so far (each reads every name missed meanwhile). */
  lookups = 0;
  readonly subscriber: Subscriber;

  /** `now`: a monotonic clock in milliseconds (tests move it by hand). */
  constructor(db: Database, opts: { ttlMs?: number; now?: () => number } = {}) {
    this.#db = db;
    this.#ttlMs = opts.ttlMs ?? NAMES_CACHE_MS;
    this.#now = opts.now ?? (() => performance.now());
    this.subscriber = {
      name: 'payer-names',
      wants: (e: EventHead) => e.type === MERCHANT_UPDATE || e.type === STORE_UPDATE,
      handle: async () => {},
      afterCommit: (batch) => this.#learn(batch),
    };
  }

  /** Keeps names until they change, from `feed` (which must listen on PAYER_NAME_CHANGED_CHANNEL). */
  follow(feed: ChangeFeed): void {
    this.#feed = feed;
    feed.subscribe({
      changed: (channel, payload) => { if (channel === PAYER_NAME_CHANGED_CHANNEL) this.#forget(payload); },
      reset: () => this.#forgetAll(),
    });
  }

  /** Whether names are kept until they change (the feed listens); starts the feed on first use. */
  #exactNow(): boolean {
    if (!this.#feed) return false;
    if (this.#feed.active) return true;
    this.#feed.start();
    return false;
  }

  #forget(named: string): void {
    this.#generation++;
    const colon = named.indexOf(':');
    const kind = named.slice(0, colon);
    if (kind === 'merchant' || kind === 'store') this.#entries[kind].delete(named.slice(colon + 1));
  }

  #forgetAll(): void {
    this.#generation++;
    this.#entries.merchant.clear();
    this.#entries.store.clear();
  }

  /** The names, at once when both are held and fresh; otherwise after one grouped read. */
  names(merchantId: string, storeId: string | null): PayerNames | Promise<PayerNames> {
    const now = this.#now();
    const fresh = this.#fresh('merchant', merchantId, now) && (storeId === null || this.#fresh('store', storeId, now));
    if (fresh) return this.#held(merchantId, storeId);
    this.#want('merchant', merchantId);
    if (storeId !== null) this.#want('store', storeId);
    return this.#flushSoon().then(() => this.#held(merchantId, storeId));
  }

  /**
   * Whatever is held, however old, without waiting (socket events are emitted in order and never
   * wait); a missing or stale name is read again in the background for the next one.
   */
  peek(merchantId: string, storeId: string | null): PayerNames {
    const now = this.#now();
    if (!this.#fresh('merchant', merchantId, now)) this.#want('merchant', merchantId);
    if (storeId !== null && !this.#fresh('store', storeId, now)) this.#want('store', storeId);
    if (this.#pending.merchant.size + this.#pending.store.size > 0) this.#flushSoon().catch(() => {});
    return this.#held(merchantId, storeId);
  }

  /** Held and young enough; one near its end is read again in the background meanwhile. */
  #fresh(kind: Kind, id: string, now: number): boolean {
    const e = this.#entries[kind].get(id);
    if (!e) return false;
    if (e.exact && this.#exactNow()) return true;
    if (now - e.at >= this.#ttlMs) return false;
    if (now - e.at > this.#ttlMs - REFRESH_AHEAD_MS && !e.refreshing) {
      e.refreshing = true;
      this.#want(kind, id);
      this.#flushSoon().catch(() => {});
    }
    return true;
  }

  #held(merchantId: string, storeId: string | null): PayerNames {
    const merchant = this.#entries.merchant.get(merchantId)?.name;
    const store = storeId === null ? undefined : this.#entries.store.get(storeId)?.name;
    return { ...(merchant !== undefined ? { merchant_name: merchant } : {}), ...(store !== undefined ? { store_name: store } : {}) };
  }

  #want(kind: Kind, id: string): void {
    this.#pending[kind].add(id);
  }

  /** The read of everything wanted so far, sent after this turn of the event loop. */
  #flushSoon(): Promise<void> {
    this.#next ??= new Promise<void>((resolve, reject) => setImmediate(() => {
      this.#next = null;
      this.#read().then(resolve, reject);
    }));
    return this.#next;
  }

  async #read(): Promise<void> {
    const { merchant, store } = this.#pending;
    this.#pending = { merchant: new Set(), store: new Set() };
    if (merchant.size + store.size === 0) return;
    const startedAt = this.#now();
    const exact = this.#exactNow();
    const generation = this.#generation;
    this.lookups++;
    // Ids are URL-safe words (no comma), so a text list binds alike on both engines.
    const rows = await queryRows<{ kind: Kind; id: string; name: string }>(this.#db.orm, sql`
      select 'merchant' as kind, id, name from merchants where id = any(string_to_array(${[...merchant].join(',')}, ','))
      union all
      select 'store' as kind, id, name from stores where id = any(string_to_array(${[...store].join(',')}, ','))`);
    // A read that a change overlapped serves its waiters, and is read again next time.
    const overlapped = generation !== this.#generation;
    for (const r of rows) this.#set(r.kind, r.id, r.name, overlapped ? startedAt - this.#ttlMs : startedAt, exact && !overlapped);
    for (const id of merchant) this.#doneRefreshing('merchant', id);
    for (const id of store) this.#doneRefreshing('store', id);
  }

  #doneRefreshing(kind: Kind, id: string): void {
    const e = this.#entries[kind].get(id);
    if (e) e.refreshing = false;
  }

  /** Keeps a name unless something newer (an event after the read began) is already held. */
  #set(kind: Kind, id: string, name: string, at: number, exact: boolean): void {
    const map = this.#entries[kind];
    const held = map.get(id);
    if (held && held.at > at) return;
    if (!held && map.size >= MAX_ENTRIES) map.clear();
    map.set(id, { name, at, refreshing: false, exact });
  }

  /** A rename committed through this process's outbox: the event carries the new name. */
  #learn(batch: StoredEvent[]): void {
    // While the feed listens, the database's reports and notices already made the name be read
    // again; an event taken late could put back a name renamed since.
    if (this.#exactNow()) return;
    const now = this.#now();
    for (const e of batch) {
      const d = e.data as { id?: unknown; name?: unknown } | undefined;
      if (!d || typeof d.id !== 'string' || typeof d.name !== 'string') continue;
      if (e.type === MERCHANT_UPDATE) this.#set('merchant', d.id, d.name, now, false);
      else if (e.type === STORE_UPDATE) this.#set('store', d.id, d.name, now, false);
    }
  }
}
