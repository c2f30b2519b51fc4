// Sends queued e-mails: woken when the outbox queued some, and by a poll for retries and for rows
// another process left behind. A few at a time, each attempt bounded by the SMTP timeouts, so a
// claim's lease outlives every attempt of its batch.
import type { Database } from '../platform/db/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/logger.ts';
import { CoalescedRun } from '../platform/coalesced-run.ts';
import { claimDueMail, markFailed, markSent, markSkipped, type ClaimedMail } from './queue.ts';
import { recipientNow } from './recipient.ts';
import type { SecretBox } from '../webhooks/index.ts';
import { ATTEMPT_BOUND_MS, sendError, type SendMail } from './smtp.ts';

export interface MailWorkerOptions { pollMs?: number; batch?: number; leaseMs?: number; messageIdHost: string }

/** An invitation's body that does not open (the key changed since it was queued): skipped, with why. */
export const SKIP_UNREADABLE = 'the mail cannot be opened: WEBHOOK_SECRET_KEY changed since it was queued';

export class MailWorker {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #send: SendMail;
  readonly #opts: Required<MailWorkerOptions>;
  /** Opens invitation bodies (invitation-mail.ts); without it none opens. */
  readonly #bodies: SecretBox | null;
  readonly #run = new CoalescedRun(() => this.#drain().catch((err) => this.#log.error({ err }, 'mail worker could not claim mails')), () => this.#stopped);
  #stopped = true;
  #timer: NodeJS.Timeout | null = null;

  constructor(db: Database, clock: Clock, log: Logger, send: SendMail, opts: MailWorkerOptions, bodies: SecretBox | null = null) {
    this.#db = db;
    this.#bodies = bodies;
    this.#clock = clock;
    this.#log = log;
    this.#send = send;
    this.#opts = { pollMs: 5000, batch: 5, leaseMs: ATTEMPT_BOUND_MS + 60_000, ...opts };
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#poll();
    this.wake();
  }

  wake(): void {
    this.#run.request();
  }

  /** Stops polling and waits for the attempts in flight (a row left `sending` is taken again after its lease). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#run.settled();
  }

  /** Sends what is due now (tests drive it by hand); answers how many attempts were made. */
  async runDue(): Promise<number> {
    return this.#sendDue(() => false);
  }

  /** In the background: a stop ends it after the batch in flight, the rest left pending for the next start. */
  async #drain(): Promise<void> {
    await this.#sendDue(() => this.#stopped);
  }

  async #sendDue(stop: () => boolean): Promise<number> {
    let n = 0;
    while (!stop()) {
      const claimed = await claimDueMail(this.#db, this.#clock.now(), this.#opts.leaseMs, this.#opts.batch);
      await Promise.all(claimed.map((m) => this.#attempt(m)));
      n += claimed.length;
      if (claimed.length < this.#opts.batch) break;
    }
    return n;
  }

  #poll(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => { this.wake(); this.#poll(); }, this.#opts.pollMs);
    this.#timer.unref();
  }

  async #skip(m: ClaimedMail, reason: string): Promise<void> {
    await markSkipped(this.#db, m, reason, this.#clock.now());
    this.#log.info({ mail: m.id, reason }, 'e-mail skipped');
  }

  /** The text to send: an invitation's is opened here, in memory only (never logged). */
  #textOf(m: ClaimedMail): string | null {
    if (m.kind !== 'invitation') return m.body;
    try {
      return this.#bodies?.open(m.body, m.id) ?? null;
    } catch {
      return null;
    }
  }

  async #attempt(m: ClaimedMail): Promise<void> {
    const to = await recipientNow(this.#db, m, this.#clock.now());
    if ('skip' in to) return this.#skip(m, to.skip);
    const text = this.#textOf(m);
    if (text === null) return this.#skip(m, SKIP_UNREADABLE);
    try {
      await this.#send({ to: to.address, subject: m.subject, text, messageId: `<${m.id}@${this.#opts.messageIdHost}>`, date: this.#clock.now() });
    } catch (err) {
      const error = sendError(err);
      const outcome = await markFailed(this.#db, m, error, this.#clock.now());
      const fields = { mail: m.id, attempt: m.attempts, error };
      if (outcome === 'failed') this.#log.error(fields, 'e-mail given up after its last attempt');
      else this.#log.warn(fields, 'e-mail attempt failed; it will be tried again');
      return;
    }
    await markSent(this.#db, m, to.address, this.#clock.now());
  }
}
