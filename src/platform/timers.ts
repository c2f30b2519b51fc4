// Durable timers: due work kept in the `timers` table (kind, key, run_at, payload), one row per
// (kind, key) so scheduling twice moves the same timer. A due row is claimed with FOR UPDATE SKIP
// LOCKED, its handler runs inside that transaction and the row is deleted there too: the work and
// the end of the timer commit together, so a crash or a second process never runs it twice.
// An in-process scheduler sleeps until the nearest run_at (and polls for other processes' rows);
// tests call runDue(now) with a ManualClock instead. Work too long to hold a transaction open for
// (recurring.ts) is handed back by the handler and started once the claim has committed.
import { sql } from 'drizzle-orm';
import type { Database, Executor, Tx } from './db/index.ts';
import { queryRows } from './db/index.ts';
import { CoalescedRun } from './coalesced-run.ts';
import type { Clock } from './clock.ts';
import type { Logger } from './logger.ts';

export interface TimerRow {
  kind: string;
  key: string;
  runAt: Date;
  payload: Record<string, unknown>;
  attempts: number;
}

/**
 * Runs one due timer inside the claiming transaction; must be idempotent (it may see a stale row).
 * A function it returns is called once that transaction has committed (not if it rolled back).
 */
export type TimerHandler = (tx: Tx, timer: TimerRow, now: Date) => Promise<void | (() => void)>;

export interface NewTimer {
  kind: string;
  key: string;
  runAt: Date;
  payload?: Record<string, unknown>;
}

const RETRY_DELAY_MS = 5_000;
/** Never spin: a due row another process holds (skipped, still due) is looked at again after this. */
const MIN_SLEEP_MS = 20;
const BATCH = 50;

/** The insert of a timer, before its `on conflict` clause. */
const insertTimer = (t: NewTimer) =>
  sql`insert into timers (kind, key, run_at, payload) values (${t.kind}, ${t.key}, ${t.runAt.toISOString()}, ${JSON.stringify(t.payload ?? {})}::jsonb)`;

/** Schedules (or moves) a timer in the caller's transaction. */
export async function scheduleTimer(tx: Executor, t: NewTimer): Promise<void> {
  await tx.execute(sql`${insertTimer(t)} on conflict (kind, key) do update set run_at = excluded.run_at, payload = excluded.payload, attempts = 0, last_error = null`);
}

export async function cancelTimer(tx: Executor, kind: string, key: string): Promise<void> {
  await tx.execute(sql`delete from timers where kind = ${kind} and key = ${key}`);
}

interface RawTimer { kind: string; key: string; run_at: string | Date; payload: Record<string, unknown>; attempts: number }

export class Timers {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #handlers = new Map<string, TimerHandler>();
  readonly #pollMs: number;
  #timer: NodeJS.Timeout | null = null;
  readonly #run = new CoalescedRun(() => this.#cycle(), () => this.#stopped);
  #stopped = true;
  /** A timer was scheduled in a transaction not yet known to be committed. */
  #scheduled = false;
  #unlisten: (() => void) | null = null;
  /** Scheduler cycles run so far (each is two queries when nothing is due). */
  cycles = 0;

  constructor(db: Database, clock: Clock, log: Logger, opts: { pollMs?: number } = {}) {
    this.#db = db;
    this.#clock = clock;
    this.#log = log;
    this.#pollMs = opts.pollMs ?? (db.kind === 'pglite' ? 500 : 1000);
  }

  handle(kind: string, handler: TimerHandler): void {
    this.#handlers.set(kind, handler);
  }

  /** Schedules in the caller's transaction; the local scheduler wakes after the next commit if it must. */
  async schedule(tx: Executor, t: NewTimer): Promise<void> {
    await scheduleTimer(tx, t);
    if (this.#dueBeforeNextLook(t.runAt)) this.#scheduled = true;
  }

  /** A timer due at `runAt` was committed outside schedule(): wakes the scheduler if it must. */
  committed(runAt: Date): void {
    if (this.#dueBeforeNextLook(runAt)) this.wake();
  }

  /** Schedules a timer unless its (kind, key) is already there, which then keeps its time. */
  async scheduleIfAbsent(t: NewTimer): Promise<void> {
    await this.#db.orm.execute(sql`${insertTimer(t)} on conflict (kind, key) do nothing`);
    this.committed(t.runAt);
  }

  /** Moves a timer to `runAt` if it is due later (a timer due sooner, or none, stays as it is). */
  async bringForward(kind: string, key: string, runAt: Date): Promise<void> {
    await this.#db.orm.execute(sql`update timers set run_at = least(run_at, ${runAt.toISOString()}::timestamptz) where kind = ${kind} and key = ${key}`);
    this.committed(runAt);
  }

  /**
   * Whether a timer committed now could be missed by the scheduler's next look. The scheduler never
   * sleeps longer than the poll interval, and each cycle reads the nearest run_at after what it ran,
   * so a timer due two poll intervals or more from now (one more for a cycle that read just before
   * this commit) is found in time without waking it. Under load every payment schedules its
   * 15-minute or 1-hour deadline: waking for each would cost two queries a batch for nothing.
   */
  #dueBeforeNextLook(runAt: Date): boolean {
    return runAt.getTime() - this.#clock.now().getTime() < 2 * this.#pollMs;
  }

  /** Runs every timer due at `now`, one transaction each; returns how many ran. */
  async runDue(now: Date = this.#clock.now()): Promise<number> {
    let ran = 0;
    for (;;) {
      const n = await this.#runBatch(now);
      ran += n;
      if (n === 0) return ran;
    }
  }

  async #runBatch(now: Date): Promise<number> {
    const due = await queryRows<RawTimer>(this.#db.orm, sql`select kind, key from timers where run_at <= ${now.toISOString()} and attempts < 1000 order by run_at limit ${BATCH}`);
    let ran = 0;
    for (const d of due) if (await this.#runOne(d.kind, d.key, now)) ran++;
    return ran;
  }

  /** Claims one timer (skipped when another process holds it or it moved later) and runs it. */
  async #runOne(kind: string, key: string, now: Date): Promise<boolean> {
    let claimed: { afterCommit: void | (() => void) } | null;
    try {
      claimed = await this.#db.transaction(async (tx) => {
        const [row] = await queryRows<RawTimer>(tx, sql`select kind, key, run_at, payload, attempts from timers
          where kind = ${kind} and key = ${key} and run_at <= ${now.toISOString()} for update skip locked`);
        if (!row) return null;
        const handler = this.#handlers.get(kind);
        if (!handler) throw new Error(`no handler for timer kind ${kind}`);
        const timer: TimerRow = { kind, key, runAt: new Date(row.run_at), payload: row.payload ?? {}, attempts: row.attempts };
        // Deleted first: a handler may schedule the same (kind, key) again for a later step.
        await tx.execute(sql`delete from timers where kind = ${kind} and key = ${key}`);
        return { afterCommit: await handler(tx, timer, now) };
      });
    } catch (err) {
      this.#log.error({ err, kind, key }, 'timer failed; retrying later');
      // only the row that failed, still due: one another transaction moved later meanwhile (a coin
      // chosen, a new deadline) keeps its time, not pulled forward to the retry's
      await this.#db.orm.execute(sql`update timers set attempts = attempts + 1, last_error = ${String(err instanceof Error ? err.message : err).slice(0, 500)},
        run_at = ${new Date(now.getTime() + RETRY_DELAY_MS).toISOString()} where kind = ${kind} and key = ${key} and run_at <= ${now.toISOString()}`);
      return false;
    }
    if (!claimed) return false;
    claimed.afterCommit?.();
    return true;
  }

  start(): void {
    this.#stopped = false;
    // Woken after the commit that scheduled something, so the new row is visible to the cycle.
    this.#unlisten = this.#db.onCommit(() => {
      if (!this.#scheduled) return;
      this.#scheduled = false;
      this.wake();
    });
    this.wake();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unlisten?.();
    if (this.#timer) clearTimeout(this.#timer);
    await this.#run.settled();
  }

  /** Runs what is due, then sleeps until the nearest run_at (at most the poll interval). */
  wake(): void {
    this.#run.request();
  }

  async #cycle(): Promise<void> {
    this.cycles++;
    let sleep = this.#pollMs;
    try {
      await this.runDue(this.#clock.now());
      const [next] = await queryRows<{ run_at: string | Date }>(this.#db.orm, sql`select run_at from timers where attempts < 1000 order by run_at limit 1`);
      if (next) sleep = Math.max(MIN_SLEEP_MS, Math.min(sleep, new Date(next.run_at).getTime() - this.#clock.now().getTime()));
    } catch (err) {
      this.#log.error({ err }, 'timer scheduler failed');
    }
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.wake(), sleep);
    this.#timer.unref();
  }
}
