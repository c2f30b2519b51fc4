// Work that recurs on a fixed UTC cadence (settlement's replanning every minute, scheduled payouts
// every hour), run once a tick however many processes are up. Each job is one durable timer
// (timers.ts: kind = the job's name, key `recurring`) due at the job's next tick. The process that
// claims a due tick moves the timer to the following tick in the claiming transaction, and starts
// the work once that has committed: the work opens transactions of its own and may take long, so it
// holds no transaction open and no other timer (a payment's deadline) waits behind it.
//
// The work must be catch-up work: it finds what is due and does it item by item, each in a
// transaction of its own, so running it again is harmless. That is what makes the rest safe: a
// failed run is tried again RETRY_MS later instead of a whole tick later; a run cut short by a
// crash is done again by the next tick; ticks missed while no process ran come due together and
// run once; a tick that finds its previous run still going in this process skips it.
import type { Clock } from './clock.ts';
import type { Logger } from './logger.ts';
import type { Timers } from './timers.ts';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const RECURRING_TIMER_KEY = 'recurring';
const RETRY_MS = 30_000;

/** The first tick after `now` of a cadence of `periodMs` counted from the Unix epoch (whole UTC minutes, hours). */
export function nextTick(now: Date, periodMs: number): Date {
  return new Date((Math.floor(now.getTime() / periodMs) + 1) * periodMs);
}

/**
 * `since`: the tick this run is for, or the earliest of the ticks it makes up for (missed while no
 * process ran, or a failed run's): work that is due at a moment of the day or week (weekly payouts
 * on Mondays) sees whether this run covers it even when it runs later.
 */
type Work = (since: Date) => Promise<unknown>;
interface Job { periodMs: number; work: Work }

export class RecurringWork {
  readonly #timers: Timers;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #jobs = new Map<string, Job>();
  /** The runs going on in this process, by job. */
  readonly #running = new Map<string, Promise<void>>();
  /** The `since` of a run that failed or a tick skipped, by job: the next run still covers it. */
  readonly #uncovered = new Map<string, Date>();

  constructor(timers: Timers, clock: Clock, log: Logger) {
    this.#timers = timers;
    this.#clock = clock;
    this.#log = log;
  }

  /** `work` runs at each tick of `periodMs`; call before start(). */
  every(name: string, periodMs: number, work: Work): void {
    this.#jobs.set(name, { periodMs, work });
    this.#timers.handle(name, async (tx, timer, now) => {
      await this.#timers.schedule(tx, { kind: name, key: RECURRING_TIMER_KEY, runAt: nextTick(now, periodMs) });
      return () => this.#launch(name, timer.runAt);
    });
  }

  /** Puts each job's timer in place unless a process already did (a timer in place keeps its time). */
  async start(): Promise<void> {
    const now = this.#clock.now();
    for (const [name, job] of this.#jobs) {
      await this.#timers.scheduleIfAbsent({ kind: name, key: RECURRING_TIMER_KEY, runAt: nextTick(now, job.periodMs) });
    }
  }

  /** Resolves once every run started so far has ended (shutdown, after the timers stopped; tests). */
  async settled(): Promise<void> {
    await Promise.all(this.#running.values());
  }

  #launch(name: string, due: Date): void {
    const earlier = this.#uncovered.get(name);
    const since = earlier && earlier < due ? earlier : due;
    if (this.#running.has(name)) {
      this.#log.warn({ job: name }, 'recurring work still running from an earlier tick; this tick is skipped');
      this.#uncovered.set(name, since);
      return;
    }
    this.#uncovered.delete(name);
    const run = this.#run(name, since).finally(() => this.#running.delete(name));
    this.#running.set(name, run);
  }

  async #run(name: string, since: Date): Promise<void> {
    try {
      await this.#jobs.get(name)!.work(since);
    } catch (err) {
      this.#uncovered.set(name, since);
      this.#log.error({ err, job: name }, 'recurring work failed; trying again soon');
      try {
        await this.#timers.bringForward(name, RECURRING_TIMER_KEY, new Date(this.#clock.now().getTime() + RETRY_MS));
      } catch (retryErr) {
        // the next tick runs it anyway
        this.#log.error({ err: retryErr, job: name }, 'recurring work: moving the retry closer failed');
      }
    }
  }
}
