// The payer views of GET /checkout/{token}, kept in memory as the JSON text the route sends, so a
// payment read again unchanged costs no query. Exact, across processes, through the change feed
// (src/platform/db/change-feed.ts) on the channel `payment_changed`:
// - every change to a payment or its deposits is announced by the database after it commits
//   (migrations/0950_payment_change_notify.sql): this process forgets that payment's view as soon
//   as it hears it, whichever process or tool made the change;
// - a change made by this process is reported by the database to the connection that made it
//   (migrations/0660_change_reports.sql) and forgotten here after its commit, before its caller
//   goes on: never answered stale here, not even before its notice arrives. Only the payments
//   changed are forgotten: a commit that touches no payment keeps every view;
// - a view read while a change came in is not kept (it may predate the change);
// - views are kept only while the feed listens: a lost connection forgets them all, and reads go
//   to the database until it listens again.
// Kept only for payments whose view depends on nothing but their rows: a payment with no coin yet
// lists token_options priced from the current market, so it is read every time. Status changes
// that come with time (expiry) are written by the deadline timers, and so announced like any other.
import type { ChangeFeed } from '../platform/db/change-feed.ts';

export const PAYMENT_CHANGED_CHANNEL = 'payment_changed';
/** Views kept at most; the oldest is dropped first. */
const KEPT = 10_000;

export interface CachedView {
  paymentId: string;
  merchantId: string;
  storeId: string | null;
  /** The payer's view as JSON text, without who is paid (added at each answer). */
  json: string;
}

export class CheckoutCache {
  readonly #feed: ChangeFeed;
  readonly #byToken = new Map<string, CachedView>();
  readonly #tokenOf = new Map<string, string>();
  /** Moves on every change heard: a read that saw it move is not kept. */
  #generation = 0;
  readonly #unsubscribe: () => void;

  /** `feed` must listen on PAYMENT_CHANGED_CHANNEL. */
  constructor(feed: ChangeFeed) {
    this.#feed = feed;
    this.#unsubscribe = feed.subscribe({
      changed: (channel, id) => { if (channel === PAYMENT_CHANGED_CHANNEL) this.forget(id); },
      reset: () => this.#forgetAll(),
    });
  }

  /** Whether views are being kept (while the feed listens). */
  get active(): boolean {
    return this.#feed.active;
  }

  get size(): number {
    return this.#byToken.size;
  }

  /** The kept view of a token, if any; starts the feed on first use. */
  get(token: string): CachedView | undefined {
    if (!this.#feed.active) {
      this.#feed.start();
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

  /** Stops following the feed (the feed is closed by its owner) and forgets everything. */
  close(): void {
    this.#unsubscribe();
    this.#forgetAll();
  }
}
