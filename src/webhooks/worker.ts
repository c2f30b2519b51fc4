// Makes delivery attempts (spec 6.1 "Delivery, acknowledgement and retries"). Woken right after a
// dispatch queued deliveries, and by a poll for retries and for rows another process left behind.
// Attempts run under an AttemptLimiter (overall and per destination host): rows are claimed only for
// hosts with room, so a receiver hanging for the whole timeout holds its host's slots and nothing else.
import type { Database } from '../platform/db/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/logger.ts';
import { AttemptLimiter, attemptDelivery, NO_WEBHOOK_URL, PAYMENT_URL_PREFIX, type Resolver } from './core.ts';
import { claimDue, recordAttempt, releaseClaims, type AttemptOutcome, type Claimed } from './delivery-queue.ts';
import type { Webhook, WebhookEndpoints } from './endpoints.ts';
import { secretContext } from './secret-box.ts';

export interface WorkerOptions {
  timeoutMs: number;
  retryDelaysS: readonly number[];
  allowPrivate: boolean;
  maxInFlight?: number;
  maxPerHost?: number;
  pollMs?: number;
  claimBatch?: number;
  /** How long a claim holds beyond the attempt's timeout before another process may take the row. */
  leaseMarginMs?: number;
  resolve?: Resolver;
  /** Extra trusted certificates (tests with a local HTTPS receiver). */
  ca?: string | Buffer;
}

export class DeliveryWorker {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #endpoints: WebhookEndpoints;
  readonly #opts: Required<Omit<WorkerOptions, 'resolve' | 'ca'>> & Pick<WorkerOptions, 'resolve' | 'ca'>;
  readonly limiter: AttemptLimiter;
  readonly #inFlight = new Set<Promise<void>>();
  #running: Promise<void> | null = null;
  #again = false;
  #starved = false;
  #stopped = true;
  #timer: NodeJS.Timeout | null = null;

  constructor(db: Database, clock: Clock, log: Logger, endpoints: WebhookEndpoints, opts: WorkerOptions) {
    this.#db = db;
    this.#clock = clock;
    this.#log = log;
    this.#endpoints = endpoints;
    this.#opts = {
      maxInFlight: 512, maxPerHost: 32, pollMs: db.kind === 'pglite' ? 1000 : 500, claimBatch: 100, leaseMarginMs: 60_000, ...opts,
    };
    this.limiter = new AttemptLimiter({ maxInFlight: this.#opts.maxInFlight, maxPerHost: this.#opts.maxPerHost });
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#poll();
    this.wake();
  }

  /** Look for due deliveries now (coalesced while a look is going on). */
  wake(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#fill().catch((err) => this.#log.error({ err }, 'webhook worker could not claim deliveries'))
      .finally(() => {
        this.#running = null;
        if (this.#again) {
          this.#again = false;
          this.wake();
        }
      });
  }

  /** Claims what is due now and waits for those attempts (tests and benchmarks drive it by hand). */
  async runDue(): Promise<void> {
    await this.#fill();
    await this.idle();
  }

  /** Resolves when no attempt is in flight. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Stops claiming; waits up to `graceMs` for attempts in flight; a row still unrecorded keeps its lease. */
  async stop(graceMs = 3000): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise((r) => { timer = setTimeout(r, graceMs); })]);
    clearTimeout(timer);
  }

  #poll(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => { this.wake(); this.#poll(); }, this.#opts.pollMs);
    this.#timer.unref();
  }

  // Claims due rows while there is room, and starts their attempts.
  async #fill(): Promise<void> {
    const { maxInFlight, maxPerHost, claimBatch, timeoutMs, leaseMarginMs } = this.#opts;
    for (;;) {
      const room = maxInFlight - this.limiter.inFlight;
      if (room <= 0) { this.#starved = true; return; }
      const busy = [...this.#hostsInFlight()].filter((h) => this.limiter.inFlightFor(h) >= maxPerHost);
      const claimed = await claimDue(this.#db, this.#clock.now(), timeoutMs + leaseMarginMs, Math.min(room, claimBatch), busy);
      const giveBack: Claimed[] = [];
      // The endpoints as they are right now, read once for the batch whose attempts start now.
      const endpoints = claimed.length === 0 ? new Map<string, Webhook>()
        : await this.#endpoints.current(this.#db.orm, claimed.map((c) => ({ merchantId: c.row.merchantId, livemode: c.row.livemode })));
      for (const c of claimed) {
        const release = this.limiter.tryAcquire(c.row.host);
        if (release) this.#track(this.#attempt(c, endpoints.get(secretContext(c.row.merchantId, c.row.livemode))).finally(release));
        else giveBack.push(c);
      }
      if (giveBack.length > 0) {
        this.#starved = true;
        await releaseClaims(this.#db, giveBack);
      }
      if (claimed.length < Math.min(room, claimBatch) || giveBack.length > 0) return;
    }
  }

  readonly #hosts = new Map<string, number>();
  #hostsInFlight(): IterableIterator<string> {
    return this.#hosts.keys();
  }

  #track(p: Promise<void>): void {
    this.#inFlight.add(p);
    void p.finally(() => {
      this.#inFlight.delete(p);
      // A slot came free: if rows were left waiting for one, look again at once.
      if (this.#starved) {
        this.#starved = false;
        this.wake();
      }
    });
  }

  async #attempt(c: Claimed, webhook: Webhook | undefined): Promise<void> {
    const host = c.row.host;
    this.#hosts.set(host, (this.#hosts.get(host) ?? 0) + 1);
    try {
      const outcome = await this.#post(c, webhook);
      await recordAttempt(this.#db, c, outcome, this.#opts.retryDelaysS);
    } catch (err) {
      // The row keeps its claim and lease; after the lease it is taken again.
      this.#log.error({ err, delivery: c.row.id }, 'webhook attempt could not be recorded');
    } finally {
      const left = (this.#hosts.get(host) ?? 1) - 1;
      if (left === 0) this.#hosts.delete(host);
      else this.#hosts.set(host, left);
    }
  }

  // One attempt with the URL and secret as they are now (account URL at each attempt; a payment's
  // own URL re-checked before each attempt; always the mode's current secret).
  async #post(c: Claimed, found: Webhook | undefined): Promise<AttemptOutcome> {
    const { row } = c;
    const startedAt = this.#clock.now();
    let webhook = found;
    const url = row.target === 'payment' ? row.url : webhook?.url ?? null;
    // A payment's own URL is signed with the mode's secret even if the account never read it yet.
    if (url && !webhook && row.target === 'payment') webhook = await this.#endpoints.get(row.merchantId, row.livemode);
    if (!url || !webhook) {
      return { ok: false, url: null, error: NO_WEBHOOK_URL, response: '', millis: 0, startedAt, endedAt: this.#clock.now() };
    }
    const r = await attemptDelivery({
      url, body: row.payload, secret: webhook.secret, deliveryId: row.id, eventType: row.eventType,
      attempt: row.attempts + 1, timeoutMs: this.#opts.timeoutMs, allowPrivate: this.#opts.allowPrivate,
      resolve: this.#opts.resolve, ca: this.#opts.ca, clock: this.#clock,
      ...(row.target === 'payment' ? { messagePrefix: PAYMENT_URL_PREFIX } : {}),
    });
    return {
      ok: r.ok, url, statusCode: r.statusCode, error: r.error, response: r.response, millis: r.millis,
      signedAt: r.signedAt, startedAt, endedAt: this.#clock.now(),
    };
  }
}

