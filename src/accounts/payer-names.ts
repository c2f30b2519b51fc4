// Who the payer is paying: the merchant's name, and the store's for a storefront key's payment
// (`merchant_name`, `store_name` in the payer's view and the checkout socket's `payment:update`).
//
// GET /checkout/{token} is a hot read, so the names never cost it a round trip of its own: they
// are kept in process. A name read from the database is served for NAMES_CACHE_MS; one used in the
// last REFRESH_AHEAD_MS of that time is read again in the background, so a busy merchant's checkout
// never waits. A rename committed through any process reaches this one within NAMES_CACHE_MS; the
// process that dispatches the outbox takes it from the `merchant:update` / `store:update` event at
// once. Names missed in one turn of the event loop are read together in one query.
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../platform/db/index.ts';
import type { EventHead, StoredEvent, Subscriber } from '../events/index.ts';
import { MERCHANT_UPDATE, STORE_UPDATE } from './socket-events.ts';

/** How long a name read from the database is served (the bound for a rename made by another process). */
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
}

export class PayerNameCache {
  readonly #db: Database;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #entries: Record<Kind, Map<string, Entry>> = { merchant: new Map(), store: new Map() };
  #pending: Record<Kind, Set<string>> = { merchant: new Set(), store: new Set() };
  #next: Promise<void> | null = null;
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
    if (!e || now - e.at >= this.#ttlMs) return false;
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
    this.lookups++;
    // Ids are URL-safe words (no comma), so a text list binds alike on both engines.
    const rows = await queryRows<{ kind: Kind; id: string; name: string }>(this.#db.orm, sql`
      select 'merchant' as kind, id, name from merchants where id = any(string_to_array(${[...merchant].join(',')}, ','))
      union all
      select 'store' as kind, id, name from stores where id = any(string_to_array(${[...store].join(',')}, ','))`);
    for (const r of rows) this.#set(r.kind, r.id, r.name, startedAt);
    for (const id of merchant) this.#doneRefreshing('merchant', id);
    for (const id of store) this.#doneRefreshing('store', id);
  }

  #doneRefreshing(kind: Kind, id: string): void {
    const e = this.#entries[kind].get(id);
    if (e) e.refreshing = false;
  }

  /** Keeps a name unless something newer (an event after the read began) is already held. */
  #set(kind: Kind, id: string, name: string, at: number): void {
    const map = this.#entries[kind];
    const held = map.get(id);
    if (held && held.at > at) return;
    if (!held && map.size >= MAX_ENTRIES) map.clear();
    map.set(id, { name, at, refreshing: false });
  }

  /** A rename committed through this process's outbox: the event carries the new name. */
  #learn(batch: StoredEvent[]): void {
    const now = this.#now();
    for (const e of batch) {
      const d = e.data as { id?: unknown; name?: unknown } | undefined;
      if (!d || typeof d.id !== 'string' || typeof d.name !== 'string') continue;
      if (e.type === MERCHANT_UPDATE) this.#set('merchant', d.id, d.name, now);
      else if (e.type === STORE_UPDATE) this.#set('store', d.id, d.name, now);
    }
  }
}
