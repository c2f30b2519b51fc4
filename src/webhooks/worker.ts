// Makes delivery attempts (spec 6.1 "Delivery, acknowledgement and retries"). Woken right after a
// dispatch queued deliveries, and by a poll for retries and for rows another process left behind.
// Attempts run under an AttemptLimiter (overall and per destination host): rows are claimed only for
// hosts with room, so a receiver hanging for the whole timeout holds its host's slots and nothing else.
import type { Database } from '../platform/db/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/logger.ts';
import { CoalescedRun } from '../platform/coalesced-run.ts';
import { AttemptLimiter, attemptDelivery, NO_WEBHOOK_URL, PAYMENT_URL_PREFIX, type Resolver } from './core.ts';
import { claimDue, recordAttempts, releaseClaims, type AttemptOutcome, type Claimed } from './delivery-queue.ts';
import { WriteBatcher } from './write-batcher.ts';
import type { Announcer } from './delivery-store.ts';
import type { Webhook, WebhookEndpoints } from './endpoints.ts';
import { secretContext } from './secret-box.ts';
import { ConnectionPool } from './connection-pool.ts';
import type { Reservation } from './ping.ts';
import type { DeliveryRow } from './schema.ts';
import { randomHex } from '../platform/ids.ts';

/** A claimed row waiting for a slot of its host, with the endpoints as read when it was claimed. */
interface Waiting {
  c: Claimed;
  snapshot: Map<string, Webhook>;
  readAt: number;
}

/** A backlogged row older than this reads the endpoints again before its attempt. */
const SNAPSHOT_FRESH_MS = 1000;

/** A host's backlog holds up to this many rounds of its slots. */
const BACKLOG_ROUNDS = 2;

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
  readonly #writes: WriteBatcher<{ c: Claimed; o: AttemptOutcome }>;
  readonly #inFlight = new Set<Promise<void>>();
  /** Attempts in flight per host. */
  readonly #hosts = new Map<string, number>();
  /** Claimed rows waiting for a slot of their host. */
  readonly #backlog = new Map<string, Waiting[]>();
  /** Places in a host's backlog promised to rows being inserted already claimed (reserve), not yet started. */
  readonly #promised = new Map<string, number>();
  /** Rows in the backlogs, promised places included. */
  #backlogSize = 0;
  readonly #run = new CoalescedRun(
    () => this.#fill().catch((err) => this.#log.error({ err }, 'webhook worker could not claim deliveries')),
    () => this.#stopped,
  );
  #starved = false;
  #stopped = true;
  #timer: NodeJS.Timeout | null = null;
  /**
   * Rows asked for per claim: shrinks to what the last claim could place when it had to give rows
   * back (one busy host), grows back to claimBatch while claims are placed whole. Rows claimed only
   * to be given back cost two writes each and bring nothing.
   */
  #claimSize: number;
  /** Kept-alive connections per checked destination, opened afresh by each start. */
  #pool: ConnectionPool;

  constructor(db: Database, announcer: Announcer, clock: Clock, log: Logger, endpoints: WebhookEndpoints, opts: WorkerOptions) {
    this.#db = db;
    this.#clock = clock;
    this.#log = log;
    this.#endpoints = endpoints;
    this.#opts = {
      maxInFlight: 512, maxPerHost: 32, pollMs: db.kind === 'pglite' ? 1000 : 500, claimBatch: 100, leaseMarginMs: 60_000, ...opts,
    };
    this.#writes = new WriteBatcher((items) => recordAttempts(db, announcer, items, this.#opts.retryDelaysS));
    this.limiter = new AttemptLimiter({ maxInFlight: this.#opts.maxInFlight, maxPerHost: this.#opts.maxPerHost });
    this.#pool = this.#newPool();
    this.#claimSize = this.#opts.claimBatch;
  }

  #newPool(): ConnectionPool {
    return new ConnectionPool({ maxSocketsPerKey: this.#opts.maxPerHost, maxFreePerKey: this.#opts.maxPerHost });
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#pool.close();
    this.#pool = this.#newPool();
    this.#poll();
    this.wake();
  }

  /** Look for due deliveries now (coalesced while a look is going on). */
  wake(): void {
    this.#run.request();
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
    await this.#run.settled();
    // Rows still waiting for a slot go back to the queue for whichever process runs next.
    const waiting = [...this.#backlog.values()].flat().map((w) => w.c);
    this.#backlogSize -= waiting.length;
    this.#backlog.clear();
    await this.#giveBack(waiting);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise((r) => { timer = setTimeout(r, graceMs); })]);
    clearTimeout(timer);
    this.#pool.close();
  }

  #giveBack(claimed: Claimed[]): Promise<void> {
    return releaseClaims(this.#db, claimed).catch((err) => this.#log.error({ err }, 'webhook worker could not give back its backlog'));
  }

  #poll(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => { this.wake(); this.#poll(); }, this.#opts.pollMs);
    this.#timer.unref();
  }

  // Claims due rows while there is room, and starts their attempts. A claimed row whose host is
  // full waits in a per-host backlog of up to two rounds of that host's slots (so it starts within
  // two timeouts, inside its lease) and starts the moment a slot of its host frees; beyond that it is
  // given back. A host is left out of claims until its backlog is down to one round, so a busy
  // host's rows are claimed in batches rather than one per freed slot.
  async #fill(): Promise<void> {
    const { maxInFlight, maxPerHost, claimBatch } = this.#opts;
    for (;;) {
      const room = maxInFlight - this.limiter.inFlight - this.#backlogSize;
      if (room <= 0) { this.#starved = true; return; }
      const full = [...this.#hosts.keys()].filter((h) => this.#waitingFor(h) >= maxPerHost);
      // Rows of a full host are left out: look again as soon as its backlog is down to one round.
      if (full.length > 0) this.#starved = true;
      const want = Math.min(room, this.#claimSize);
      const claimed = await claimDue(this.#db, this.#clock.now(), this.#leaseMs, want, full);
      // The endpoints as they are right now, read once for the batch whose attempts start now.
      const snapshot = claimed.length === 0 ? null
        : await this.#endpoints.current(this.#db.orm, claimed.map((c) => ({ merchantId: c.row.merchantId, livemode: c.row.livemode })));
      const giveBack: Claimed[] = [];
      for (const c of claimed) {
        const host = c.row.host;
        const release = this.#acquire(host);
        if (release) {
          this.#track(this.#attempt(c, snapshot, release));
        } else if (this.#waitingFor(host) < BACKLOG_ROUNDS * maxPerHost) {
          this.#wait({ c, snapshot: snapshot!, readAt: Date.now() });
        } else {
          giveBack.push(c);
        }
      }
      this.#claimSize = giveBack.length > 0
        ? Math.max(1, claimed.length - giveBack.length)
        : claimed.length === want ? Math.min(claimBatch, this.#claimSize * 2) : this.#claimSize;
      if (giveBack.length > 0) {
        this.#starved = true;
        await releaseClaims(this.#db, giveBack);
      }
      if (claimed.length < want || giveBack.length > 0) return;
    }
  }

  /**
   * A slot, or a place in the host's backlog, for a row about to be inserted already claimed (the
   * test ping, ping.ts): null when the worker is not running here, is full, or the host's backlog is
   * (the row then goes in unclaimed and is taken as any due row). The lease is a claimed row's.
   */
  reserve(host: string): Reservation | null {
    if (this.#stopped || this.#opts.maxInFlight - this.limiter.inFlight - this.#backlogSize <= 0) return null;
    let release = this.#acquire(host);
    if (!release) {
      // No slot now: a place in the host's backlog, as a claimed row would get.
      if (this.#waitingFor(host) >= BACKLOG_ROUNDS * this.#opts.maxPerHost) return null;
      this.#promised.set(host, (this.#promised.get(host) ?? 0) + 1);
      this.#backlogSize += 1;
    }
    const unpromise = () => {
      const left = (this.#promised.get(host) ?? 1) - 1;
      if (left === 0) this.#promised.delete(host);
      else this.#promised.set(host, left);
      this.#backlogSize -= 1;
    };
    const claim = randomHex(12);
    const leaseUntil = new Date(this.#clock.now().getTime() + this.#leaseMs);
    let settled = false;
    return {
      claim, leaseUntil,
      start: (row: DeliveryRow, webhook: Webhook) => {
        if (settled) return;
        settled = true;
        if (!release) unpromise();
        // Stopped while the row went in: no attempt starts now, the row goes back to the queue at once.
        if (this.#stopped) {
          release?.();
          void this.#giveBack([{ row, claim }]);
          return;
        }
        const snapshot = new Map([[secretContext(row.merchantId, row.livemode), webhook]]);
        // A slot may have freed while the row went in; else it waits its turn in the backlog.
        release ??= this.#acquire(host);
        if (release) return this.#track(this.#attempt({ row, claim }, snapshot, release));
        this.#wait({ c: { row, claim }, snapshot, readAt: Date.now() });
      },
      cancel: () => {
        if (settled) return;
        settled = true;
        if (release) release();
        else unpromise();
      },
    };
  }

  /** Rows waiting for a slot of `host`, places promised included. */
  #waitingFor(host: string): number {
    return (this.#backlog.get(host)?.length ?? 0) + (this.#promised.get(host) ?? 0);
  }

  /** Puts a claimed row in its host's backlog. */
  #wait(w: Waiting): void {
    const host = w.c.row.host;
    const queue = this.#backlog.get(host);
    if (queue) queue.push(w);
    else this.#backlog.set(host, [w]);
    this.#backlogSize += 1;
  }

  get #leaseMs(): number {
    // waiting in the backlog (two rounds of timeouts at most) + the attempt itself + a margin
    return (BACKLOG_ROUNDS + 1) * this.#opts.timeoutMs + this.#opts.leaseMarginMs;
  }

  #track(p: Promise<void>): void {
    this.#inFlight.add(p);
    void p.finally(() => this.#inFlight.delete(p));
  }

  // A slot for an attempt to `host`, or null when the host or the worker is full. Releasing it
  // starts the host's next backlogged row at once, and wakes the claim loop if it was held back.
  #acquire(host: string): (() => void) | null {
    const release = this.limiter.tryAcquire(host);
    if (!release) return null;
    this.#hosts.set(host, (this.#hosts.get(host) ?? 0) + 1);
    return () => {
      release();
      const left = (this.#hosts.get(host) ?? 1) - 1;
      if (left === 0) this.#hosts.delete(host);
      else this.#hosts.set(host, left);
      const waiting = this.#backlog.get(host);
      if (waiting && waiting.length > 0) {
        const next = waiting.shift()!;
        if (waiting.length === 0) this.#backlog.delete(host);
        this.#backlogSize -= 1;
        const again = this.#acquire(host);
        const fresh = Date.now() - next.readAt < SNAPSHOT_FRESH_MS ? next.snapshot : null;
        if (again) this.#track(this.#attempt(next.c, fresh, again));
      }
      // Look for more when the loop was held back and this host (or the worker) has room again.
      if (this.#starved && this.#waitingFor(host) < this.#opts.maxPerHost) {
        this.#starved = false;
        this.wake();
      }
    };
  }

  // The slot is given back as soon as the receiver has answered; writing the outcome (batched with
  // other attempts' outcomes) does not hold the destination's slot.
  async #attempt(c: Claimed, snapshot: Map<string, Webhook> | null, release: () => void): Promise<void> {
    let outcome: AttemptOutcome;
    try {
      const key = secretContext(c.row.merchantId, c.row.livemode);
      const endpoints = snapshot ?? await this.#endpoints.current(this.#db.orm, [c.row]);
      outcome = await this.#post(c, endpoints.get(key));
    } catch (err) {
      release();
      this.#log.error({ err, delivery: c.row.id }, 'webhook attempt could not be made');
      return;
    }
    release();
    try {
      await this.#writes.add({ c, o: outcome });
    } catch (err) {
      // The row keeps its claim and lease; after the lease it is taken again.
      this.#log.error({ err, delivery: c.row.id }, 'webhook attempt could not be recorded');
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
      resolve: this.#opts.resolve, ca: this.#opts.ca, clock: this.#clock, pool: this.#pool,
      ...(row.target === 'payment' ? { messagePrefix: PAYMENT_URL_PREFIX } : {}),
    });
    return {
      ok: r.ok, url, statusCode: r.statusCode, error: r.error, response: r.response, millis: r.millis,
      signedAt: r.signedAt, startedAt, endedAt: this.#clock.now(),
    };
  }
}

