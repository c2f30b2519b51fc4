// Hands committed outbox events to subscribers, oldest first, at least once, across restarts.
//
// One batch is one transaction: take the dispatch lock (one dispatcher at a time across every
// process, which keeps events of a payment in order), read undispatched events in `seq` order,
// let each subscriber act inside that transaction (webhook deliveries are inserted there, so they
// commit together with the mark), then mark the batch dispatched. A crash before the commit
// leaves the batch undispatched, and it is handed over again after restart.
import { asc, inArray, isNull, sql } from 'drizzle-orm';
import type { Database, Tx } from '../platform/db/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/logger.ts';
import { events } from './schema.ts';
import type { StoredEvent } from './outbox.ts';

export interface Subscriber {
  name: string;
  /** Runs inside the batch transaction; throwing rolls the batch back to be tried again. */
  handle(tx: Tx, batch: StoredEvent[]): Promise<void>;
  /** Optional: runs after the batch committed (e.g. to wake a worker for rows the batch inserted). */
  afterCommit?(batch: StoredEvent[]): void;
}

const DISPATCH_LOCK = 7_270_002;

export class OutboxDispatcher {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #subscribers: Subscriber[] = [];
  readonly #pollMs: number;
  readonly #batchSize: number;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = true;
  #unlisten: (() => void) | null = null;

  constructor(db: Database, clock: Clock, log: Logger, opts: { pollMs?: number; batchSize?: number } = {}) {
    this.#db = db;
    this.#clock = clock;
    this.#log = log;
    this.#pollMs = opts.pollMs ?? (db.kind === 'pglite' ? 1000 : 250);
    this.#batchSize = opts.batchSize ?? 200;
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
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#drain().finally(() => {
      this.#running = null;
      if (this.#again && !this.#stopped) {
        this.#again = false;
        this.kick();
      }
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unlisten?.();
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }

  /** Dispatches everything pending now; returns how many events were handed over. */
  async drainNow(): Promise<number> {
    let total = 0;
    for (;;) {
      // Until a batch comes back empty: subscribers may append events (a settlement raised by a
      // payment's confirmation) that are dispatched in the next batch, without waiting for the poll.
      const n = await this.dispatchBatch();
      total += n;
      if (n === 0) return total;
    }
  }

  /** One batch; 0 when nothing was pending or another process holds the dispatch lock. */
  async dispatchBatch(): Promise<number> {
    let handed: StoredEvent[] = [];
    const n = await this.#db.transaction(async (tx) => {
      const [lock] = (await tx.execute(sql`select pg_try_advisory_xact_lock(${DISPATCH_LOCK}) as ok`) as unknown as { rows: { ok: boolean }[] }).rows;
      if (!lock.ok) return 0;
      const rows = await tx.select().from(events).where(isNull(events.dispatchedAt)).orderBy(asc(events.seq)).limit(this.#batchSize);
      if (rows.length === 0) return 0;
      const batch: StoredEvent[] = rows.map((r) => ({
        seq: r.seq, id: r.id, type: r.type, merchantId: r.merchantId, paymentId: r.paymentId,
        livemode: r.livemode, data: r.data, webhookUrl: r.webhookUrl, createdAt: r.createdAt,
      }));
      for (const s of this.#subscribers) await s.handle(tx, batch);
      await tx.update(events).set({ dispatchedAt: this.#clock.now() }).where(inArray(events.seq, batch.map((e) => e.seq)));
      handed = batch;
      return batch.length;
    }, { silent: true });
    if (handed.length > 0) {
      for (const s of this.#subscribers) {
        try { s.afterCommit?.(handed); } catch (err) { this.#log.error({ err, subscriber: s.name }, 'outbox afterCommit failed'); }
      }
    }
    return n;
  }

  async #drain(): Promise<void> {
    try {
      await this.drainNow();
    } catch (err) {
      this.#log.error({ err }, 'outbox dispatch failed; it will be retried');
    }
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
