// Hands committed outbox events to subscribers, oldest first, at least once, across restarts.
//
// One batch is one transaction: take the dispatch lock (one dispatcher at a time across every
// process, which keeps events of a payment in order), read the events waiting in outbox_pending in
// `seq` order, let each subscriber act inside that transaction (webhook deliveries are inserted
// there, so they commit together with the batch leaving the queue), then take the batch off the
// queue. A crash before the commit leaves the batch waiting, and it is handed over again after
// restart (what a subscriber did outside the database before the commit, in beforeCommit, is then
// done again: at least once). Whoever writes an event adds its seq to outbox_pending in the same statement.
import { sql } from 'drizzle-orm';
import { queryRows, type Database, type Tx } from '../platform/db/index.ts';
import { CoalescedRun } from '../platform/coalesced-run.ts';
import type { Logger } from '../platform/logger.ts';
import { HEAD_COLUMNS, storedEvent, type EventHead, type EventRecord, type NewEvent, type StoredEvent } from './outbox.ts';
import { splitAnnouncements, type Announced, type Announcement } from './announce.ts';

export interface Subscriber {
  name: string;
  /**
   * Optional: whether this subscriber reads the `data` of an event (given without it). An event no
   * subscriber wants reaches handle() with `data` undefined: most events under load (a payment's
   * creation and its audit entry) are then never read back. Without wants(), every event's data is read.
   */
  wants?(e: EventHead): boolean;
  /** Runs inside the batch transaction; throwing rolls the batch back to be tried again. */
  handle(tx: Tx, batch: StoredEvent[]): Promise<void>;
  /**
   * Optional: runs last inside the batch transaction, after every handle() and after the batch left
   * the queue, so only the commit remains. For work that must not be lost to a crash right after the
   * commit yet cannot be rolled back (publishing to Redis): it is repeated only when the commit
   * itself fails. Throwing rolls the batch back like handle().
   */
  beforeCommit?(batch: StoredEvent[]): Promise<void>;
  /** Optional: runs after the batch committed (e.g. to wake a worker for rows the batch inserted). */
  afterCommit?(batch: StoredEvent[]): void;
  /** Optional: takes socket-only events (announce.ts) inside the writer's transaction. */
  announce?(tx: Tx, list: Announcement[]): Promise<void>;
  /** Optional: the same events after that transaction committed. */
  announced?(batch: StoredEvent[]): void;
}

const DISPATCH_LOCK = 7_270_002;

/** The seqs of events as one bigint[] parameter (a text list: both engines bind it alike). */
const seqArray = (events: readonly EventHead[]) => sql`string_to_array(${events.map((e) => e.seq).join(',')}, ',')::bigint[]`;
/**
 * After a background drain that handed events over, the next one starts no sooner than this: under
 * load every commit asks for a drain, and a drain costs its round trips and a commit whatever its
 * size, so letting events gather for a moment makes fewer, larger batches (measured: from about 65
 * to 35 batches a second at 2,300 payments a second). Webhooks and sockets wait at most this
 * much longer; drainNow() and an idle dispatcher are not delayed.
 */
export const DRAIN_GAP_MS = 25;

export class OutboxDispatcher {
  readonly #db: Database;
  readonly #log: Logger;
  readonly #subscribers: Subscriber[] = [];
  readonly #pollMs: number;
  readonly #batchSize: number;
  readonly #gapMs: number;
  #timer: NodeJS.Timeout | null = null;
  readonly #run = new CoalescedRun(() => this.#drain(), () => this.#stopped);
  #stopped = true;
  #unlisten: (() => void) | null = null;

  constructor(db: Database, log: Logger, opts: { pollMs?: number; batchSize?: number; gapMs?: number } = {}) {
    this.#db = db;
    this.#log = log;
    this.#pollMs = opts.pollMs ?? (db.kind === 'pglite' ? 1000 : 250);
    this.#batchSize = opts.batchSize ?? 200;
    this.#gapMs = opts.gapMs ?? DRAIN_GAP_MS;
  }

  subscribe(s: Subscriber): void {
    this.#subscribers.push(s);
  }

  start(): void {
    this.#stopped = false;
    this.#unlisten = this.#db.onCommit(() => this.kick());
    this.#schedule();
    this.kick();
  }

  /** Dispatch soon (after a local commit); coalesces while a run is going on. */
  kick(): void {
    this.#run.request();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unlisten?.();
    if (this.#timer) clearTimeout(this.#timer);
    await this.#run.settled();
  }

  /**
   * Socket-only events (announce.ts), inside the writer's transaction: handed to the subscribers
   * that take them, never stored (too big ones are written to the outbox instead). The writer
   * passes the answer to announced() once the transaction committed.
   */
  async announce(tx: Tx, list: readonly NewEvent[]): Promise<Announced> {
    const a = await splitAnnouncements(tx, list);
    if (a.list.length > 0) for (const s of this.#subscribers) await s.announce?.(tx, a.list);
    return a;
  }

  /** After the commit of a transaction that announced events. */
  announced(a: Announced): void {
    if (a.stored) this.kick();
    if (a.list.length === 0) return;
    const batch = a.list.map((x) => x.event);
    for (const s of this.#subscribers) {
      try { s.announced?.(batch); } catch (err) { this.#log.error({ err, subscriber: s.name }, 'announcement failed'); }
    }
  }

  /** Dispatches everything pending now; returns how many events were handed over. */
  async drainNow(): Promise<number> {
    let total = 0;
    for (;;) {
      // Until nothing waits: subscribers may append events (a settlement raised by a payment's
      // confirmation) that are dispatched in the next batch, without waiting for the poll.
      const { handed, more } = await this.#batch();
      total += handed;
      if (handed === 0 || !more) return total;
    }
  }

  /** One batch; 0 when nothing was pending or another process holds the dispatch lock. */
  async dispatchBatch(): Promise<number> {
    return (await this.#batch()).handed;
  }

  /**
   * One batch in five round trips besides the subscribers' own (and the read of wanted data): the
   * lock, the read, then leaving the queue and "is anything still waiting?" in one statement, so a
   * drain ends without an extra, empty transaction. The outbox is read many times a second under
   * load: its SQL is written out, not built per batch.
   */
  async #batch(): Promise<{ handed: number; more: boolean }> {
    let handed: StoredEvent[] = [];
    const more = await this.#db.transaction(async (tx) => {
      // Another process holds the lock: it is dispatching.
      const [lock] = await queryRows<{ ok: boolean }>(tx, sql`select pg_try_advisory_xact_lock(${DISPATCH_LOCK}) as ok`);
      if (!lock.ok) return false;
      // Read in a statement of its own, after the lock: a statement sees the database as it was when
      // the statement began, and one begun before the previous holder committed would hand its
      // batch over a second time.
      const rows = await queryRows<EventRecord>(tx, sql`
        select ${sql.raw(HEAD_COLUMNS.map((c) => `e.${c}`).join(', '))}
        from events e
        where e.seq = any(array(select seq from outbox_pending order by seq limit ${this.#batchSize}))
        order by e.seq`);
      if (rows.length === 0) return false;
      const batch = rows.map(storedEvent);
      await this.#readWantedData(tx, batch);
      for (const s of this.#subscribers) await s.handle(tx, batch);
      // The statement sees the batch as still pending, so its own rows are left out of the question.
      const [mark] = await queryRows<{ more: boolean }>(tx, sql`
        with handed as (
          delete from outbox_pending where seq = any(${seqArray(batch)}) returning seq
        )
        select exists (select 1 from outbox_pending where seq not in (select seq from handed)) as more`);
      for (const s of this.#subscribers) await s.beforeCommit?.(batch);
      handed = batch;
      return mark.more;
    }, { silent: true });
    if (handed.length > 0) {
      for (const s of this.#subscribers) {
        try { s.afterCommit?.(handed); } catch (err) { this.#log.error({ err, subscriber: s.name }, 'outbox afterCommit failed'); }
      }
    }
    return { handed: handed.length, more };
  }

  /** Fills in `data` of the events some subscriber wants, in one more query when there are any. */
  async #readWantedData(tx: Tx, batch: StoredEvent[]): Promise<void> {
    const wanted = batch.filter((e) => this.#subscribers.some((s) => !s.wants || s.wants(e)));
    if (wanted.length === 0) return;
    const rows = await queryRows<{ seq: string | number | bigint; data: unknown }>(tx, sql`
      select seq, data from events where seq = any(${seqArray(wanted)})`);
    const data = new Map(rows.map((r) => [Number(r.seq), r.data]));
    for (const e of wanted) e.data = data.get(e.seq);
  }

  async #drain(): Promise<void> {
    let handed = 0;
    try {
      handed = await this.drainNow();
    } catch (err) {
      this.#log.error({ err }, 'outbox dispatch failed; it will be retried');
    }
    // Requests made meanwhile are coalesced into the run after the pause.
    if (handed > 0 && !this.#stopped) await new Promise((r) => setTimeout(r, this.#gapMs));
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.kick();
      this.#schedule();
    }, this.#pollMs);
    this.#timer.unref();
  }
}
