// The payer views of GET /checkout/{token}, kept in memory as the JSON text the route sends, so a
// payment read again unchanged costs no query. Exact, across processes:
// - every change to a payment or its deposits is announced by the database after it commits
//   (migrations/0950_payment_change_notify.sql, channel `payment_changed`): this process forgets
//   that payment's view as soon as it hears it, whichever process or tool made the change;
// - a transaction of this process forgets every view the moment it commits (before its caller
//   goes on), so a change made here is never answered stale here, not even before its notice arrives;
// - a view read while a notice or a commit came in is not kept (it may predate the change);
// - views are kept only while this process is listening: a lost connection forgets them all, and
//   reads go to the database until it listens again.
// Kept only for payments whose view depends on nothing but their rows: a payment with no coin yet
// lists token_options priced from the current market, so it is read every time. Status changes
// that come with time (expiry) are written by the deadline timers, and so announced like any other.
// On PGlite (this process's own database) the same notices are heard through PGlite's listen().
import type pg from 'pg';
import type { Database } from '../platform/db/index.ts';
import type { Logger } from '../platform/logger.ts';

export const PAYMENT_CHANGED_CHANNEL = 'payment_changed';
/** Views kept at most; the oldest is dropped first. */
const KEPT = 10_000;
const RECONNECT_MS = 1000;

export interface CachedView {
  paymentId: string;
  merchantId: string;
  storeId: string | null;
  /** The payer's view as JSON text, without who is paid (added at each answer). */
  json: string;
}

export class CheckoutCache {
  readonly #db: Database;
  readonly #log: Logger;
  readonly #byToken = new Map<string, CachedView>();
  readonly #tokenOf = new Map<string, string>();
  /** Moves on every notice and every local commit: a read that saw it move is not kept. */
  #generation = 0;
  #listening = false;
  #client: pg.Client | null = null;
  #starting: Promise<void> | null = null;
  #closed = false;
  #retry: NodeJS.Timeout | null = null;
  readonly #unlisten: () => void;

  constructor(db: Database, log: Logger) {
    this.#db = db;
    this.#log = log;
    this.#unlisten = db.onCommit(() => this.#forgetAll());
  }

  /** Whether views are being kept (while listening). */
  get active(): boolean {
    return this.#listening && !this.#closed;
  }

  get size(): number {
    return this.#byToken.size;
  }

  /** The kept view of a token, if any; starts listening on first use. */
  get(token: string): CachedView | undefined {
    if (!this.#listening) {
      this.#start();
      return undefined;
    }
    return this.#byToken.get(token);
  }

  /** Call before reading a view from the database; pass the result to put(). */
  mark(): number {
    return this.#generation;
  }

  /** Keeps a view read from the database since mark() returned `generation`, unless something changed meanwhile. */
  put(token: string, view: CachedView, generation: number): void {
    if (!this.active || generation !== this.#generation) return;
    if (this.#byToken.size >= KEPT) {
      const oldest = this.#byToken.keys().next().value!;
      this.#tokenOf.delete(this.#byToken.get(oldest)!.paymentId);
      this.#byToken.delete(oldest);
    }
    this.#byToken.set(token, view);
    this.#tokenOf.set(view.paymentId, token);
  }

  forget(paymentId: string): void {
    this.#generation++;
    const token = this.#tokenOf.get(paymentId);
    if (token === undefined) return;
    this.#tokenOf.delete(paymentId);
    this.#byToken.delete(token);
  }

  #forgetAll(): void {
    this.#generation++;
    this.#byToken.clear();
    this.#tokenOf.clear();
  }

  #start(): void {
    if (this.#starting || this.#closed) return;
    if (this.#db.pglite) this.#starting = this.#listenPglite().finally(() => { this.#starting = null; });
    else if (this.#db.url) this.#starting = this.#listen().finally(() => { this.#starting = null; });
  }

  #stopPglite: (() => Promise<void>) | null = null;

  async #listenPglite(): Promise<void> {
    try {
      this.#stopPglite = await this.#db.pglite!.listen(PAYMENT_CHANGED_CHANNEL, (id) => this.forget(id));
    } catch (err) {
      this.#log.warn({ err }, 'checkout views: cannot listen for changes; reading every view');
      return;
    }
    if (this.#closed) { await this.#stopPglite().catch(() => {}); return; }
    this.#forgetAll();
    this.#listening = true;
  }

  async #listen(): Promise<void> {
    const { default: pgModule } = await import('pg');
    const client = new pgModule.Client({ connectionString: this.#db.url! });
    const lost = (err?: Error) => {
      if (this.#client !== client) return;
      this.#client = null;
      this.#listening = false;
      this.#forgetAll();
      client.end().catch(() => {});
      if (this.#closed) return;
      if (err) this.#log.warn({ err }, 'checkout views: lost the database notices; reading every view until they are back');
      this.#retry = setTimeout(() => { this.#retry = null; this.#start(); }, RECONNECT_MS);
      this.#retry.unref();
    };
    client.on('notification', (n) => { if (n.channel === PAYMENT_CHANGED_CHANNEL && n.payload) this.forget(n.payload); });
    client.on('error', (err) => lost(err));
    client.on('end', () => lost());
    this.#client = client;
    try {
      await client.connect();
      await client.query(`listen ${PAYMENT_CHANGED_CHANNEL}`);
    } catch (err) {
      lost(err as Error);
      return;
    }
    if (this.#closed) { await client.end().catch(() => {}); return; }
    // Anything kept before was forgotten when listening stopped; from here on every change is heard.
    this.#forgetAll();
    this.#listening = true;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#unlisten();
    if (this.#retry) clearTimeout(this.#retry);
    await this.#starting;
    const client = this.#client;
    this.#client = null;
    this.#listening = false;
    this.#forgetAll();
    await client?.end().catch(() => {});
    await this.#stopPglite?.().catch(() => {});
  }
}
