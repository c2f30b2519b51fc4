// Every process must see every committed event, but the outbox dispatcher hands each batch to one
// process only (one dispatcher at a time across processes). A fan-out carries the batch to all:
// - PostgreSQL: the dispatch transaction NOTIFYs the batch's seqs (delivered only if it commits);
//   the dispatching process emits its batch at once after commit, every other process LISTENs and
//   reads those events back. One queue per process keeps batches in the order they arrived.
// - Redis (REDIS_URL): the batch itself is published on a channel all processes read (this one
//   too), inside the dispatch transaction just before its commit (beforeCommit), once Redis has
//   taken it: the commit takes the batch off the queue for good, so a process killed between that
//   commit and a publish after it would lose the batch for every other process's sockets. A commit
//   that fails after the publish hands the batch over again and it is published again: each process
//   drops events it has already delivered (by seq), so its sockets hear each once.
// - PGlite runs one process: the batch is delivered locally after commit.
// Each process then emits to its own sockets (in-memory adapter, which also keeps the 2-minute
// replay buffer for connection state recovery).
// Announcements (socket-only events, src/events/announce.ts) carry the events themselves: in the
// writer's transaction as NOTIFY payloads (PostgreSQL), or published after its commit (Redis: they
// are published in no transaction of the dispatcher, and a writer killed between its commit and
// the publish loses them for the other processes, like any socket event sent to a process that is
// down), or
// delivered locally after it (PGlite); the writing process emits them to its sockets after commit.
// Relays are the other traffic: small messages that are never stored (support typing), published
// from any process to every process (this one included) the same three ways.
import { inArray, asc, sql } from 'drizzle-orm';
import type { Database, Tx } from '../platform/db/index.ts';
import type { Logger } from '../platform/logger.ts';
import { randomHex } from '../platform/ids.ts';
import { events, type Announcement, type StoredEvent } from '../events/index.ts';

export type Deliver = (batch: StoredEvent[]) => void;
/** A relayed message: small JSON (a NOTIFY payload holds under 8000 bytes), never stored. */
export type Relay = Record<string, unknown>;
export type DeliverRelay = (message: Relay) => void;

export interface Fanout {
  readonly kind: 'local' | 'postgres' | 'redis';
  /** Inside the dispatch transaction. */
  inTransaction(tx: Tx, batch: StoredEvent[]): Promise<void>;
  /** Inside the dispatch transaction, when only its commit remains (never throws). */
  beforeCommit(batch: StoredEvent[]): Promise<void>;
  /** After the dispatch transaction committed. */
  afterCommit(batch: StoredEvent[]): void;
  /** After a transaction that announced socket-only events committed. */
  announced(batch: StoredEvent[]): void;
  /** Inside a transaction that announces socket-only events (each fits a NOTIFY payload). */
  announce(tx: Tx, list: Announcement[]): Promise<void>;
  /** Hands a relay to every process, this one included (at most once each; lost if a process is unreachable). */
  relay(message: Relay): void;
  start(deliver: Deliver, relayed?: DeliverRelay): Promise<void>;
  stop(): Promise<void>;
}

export class LocalFanout implements Fanout {
  readonly kind = 'local';
  #deliver: Deliver | null = null;
  #relayed: DeliverRelay | null = null;
  async inTransaction(): Promise<void> {}
  async announce(): Promise<void> {}
  async beforeCommit(): Promise<void> {}
  afterCommit(batch: StoredEvent[]): void { this.#deliver?.(batch); }
  announced(batch: StoredEvent[]): void { this.#deliver?.(batch); }
  relay(message: Relay): void { this.#relayed?.(message); }
  async start(deliver: Deliver, relayed?: DeliverRelay): Promise<void> { this.#deliver = deliver; this.#relayed = relayed ?? null; }
  async stop(): Promise<void> { this.#deliver = null; this.#relayed = null; }
}

/** Marks a relay in a NOTIFY payload (batches carry a list of seqs there). */
const RELAY_MARK = '!';
/** Marks announced events in a NOTIFY payload: a JSON list of the events themselves. */
const ANNOUNCE_MARK = '@';
/** A NOTIFY payload must be shorter than 8000 bytes. */
const NOTIFY_MAX_BYTES = 7999;

export const NOTIFY_CHANNEL = 'gateway_realtime';
/** NOTIFY payloads must stay under 8000 bytes; seqs are sent in chunks well below that. */
const SEQS_PER_NOTIFY = 400;
const RELISTEN_MS = 1000;

export class PgNotifyFanout implements Fanout {
  readonly kind = 'postgres';
  readonly #db: Database;
  readonly #log: Logger;
  /** Names this process in its notifications, so it skips its own (it emitted them after commit). */
  readonly #origin = randomHex(8);
  #client: import('pg').Client | null = null;
  #deliver: Deliver | null = null;
  #relayed: DeliverRelay | null = null;
  #chain: Promise<void> = Promise.resolve();
  #stopped = true;

  constructor(db: Database, log: Logger) {
    this.#db = db;
    this.#log = log;
  }

  async inTransaction(tx: Tx, batch: StoredEvent[]): Promise<void> {
    for (let i = 0; i < batch.length; i += SEQS_PER_NOTIFY) {
      const seqs = batch.slice(i, i + SEQS_PER_NOTIFY).map((e) => e.seq).join(',');
      await tx.execute(sql`select pg_notify(${NOTIFY_CHANNEL}, ${`${this.#origin}|${seqs}`})`);
    }
  }

  async beforeCommit(): Promise<void> {}

  afterCommit(batch: StoredEvent[]): void {
    this.#enqueue(async () => this.#deliver?.(batch));
  }

  announced(batch: StoredEvent[]): void {
    this.afterCommit(batch);
  }

  /** The events themselves, as few payloads as fit, all in one statement. */
  async announce(tx: Tx, list: Announcement[]): Promise<void> {
    const head = `${this.#origin}|${ANNOUNCE_MARK}`;
    const payloads: string[] = [];
    let parts: string[] = [];
    let bytes = head.length + 2;
    for (const a of list) {
      const size = Buffer.byteLength(a.json) + 1;
      if (parts.length > 0 && bytes + size > NOTIFY_MAX_BYTES) {
        payloads.push(`${head}[${parts.join(',')}]`);
        parts = [];
        bytes = head.length + 2;
      }
      parts.push(a.json);
      bytes += size;
    }
    if (parts.length > 0) payloads.push(`${head}[${parts.join(',')}]`);
    await tx.execute(sql`select ${sql.join(payloads.map((p) => sql`pg_notify(${NOTIFY_CHANNEL}, ${p})`), sql`, `)}`);
  }

  /** Delivered here at once; the others hear it through NOTIFY (outside any transaction). */
  relay(message: Relay): void {
    this.#relayed?.(message);
    this.#db.orm.execute(sql`select pg_notify(${NOTIFY_CHANNEL}, ${`${this.#origin}|${RELAY_MARK}${JSON.stringify(message)}`})`)
      .catch((err: unknown) => this.#log.warn({ err }, 'realtime relay failed'));
  }

  /** One step at a time, so batches are emitted in the order they were committed. */
  #enqueue(step: () => Promise<void>): void {
    this.#chain = this.#chain.then(step).catch((err: unknown) => this.#log.error({ err }, 'realtime fan-out failed'));
  }

  async start(deliver: Deliver, relayed?: DeliverRelay): Promise<void> {
    this.#deliver = deliver;
    this.#relayed = relayed ?? null;
    this.#stopped = false;
    await this.#listen();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const c = this.#client;
    this.#client = null;
    await c?.end().catch(() => {});
    await this.#chain;
  }

  async #listen(): Promise<void> {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: this.#db.url ?? undefined });
    client.on('notification', (n) => {
      if (n.channel !== NOTIFY_CHANNEL || !n.payload) return;
      const bar = n.payload.indexOf('|');
      const origin = n.payload.slice(0, bar);
      const list = n.payload.slice(bar + 1);
      if (origin === this.#origin) return;
      if (list.startsWith(RELAY_MARK)) return this.#relayOf(list.slice(RELAY_MARK.length));
      if (list.startsWith(ANNOUNCE_MARK)) return this.#announcedOf(list.slice(ANNOUNCE_MARK.length));
      const seqs = list.split(',').map(Number).filter(Number.isSafeInteger);
      this.#enqueue(() => this.#read(seqs));
    });
    client.on('error', (err) => {
      this.#log.warn({ err }, 'realtime LISTEN connection lost; reconnecting');
      if (this.#client === client) this.#client = null;
      client.end().catch(() => {});
      if (!this.#stopped) setTimeout(() => void this.#listen().catch(() => {}), RELISTEN_MS).unref();
    });
    await client.connect();
    await client.query(`listen ${NOTIFY_CHANNEL}`);
    if (this.#stopped) { await client.end(); return; }
    this.#client = client;
  }

  #relayOf(json: string): void {
    try {
      this.#relayed?.(JSON.parse(json) as Relay);
    } catch (err) {
      this.#log.warn({ err }, 'realtime relay dropped');
    }
  }

  /** Announced events, in the queue with the batches so the order of commits is kept. */
  #announcedOf(json: string): void {
    let batch: StoredEvent[];
    try {
      batch = (JSON.parse(json) as (StoredEvent & { createdAt: string })[]).map((e) => ({ ...e, createdAt: new Date(e.createdAt) }));
    } catch (err) {
      this.#log.warn({ err }, 'realtime announcement dropped');
      return;
    }
    this.#enqueue(async () => this.#deliver?.(batch));
  }

  async #read(seqs: number[]): Promise<void> {
    if (seqs.length === 0) return;
    const rows = await this.#db.orm.select().from(events).where(inArray(events.seq, seqs)).orderBy(asc(events.seq));
    this.#deliver?.(rows.map((r) => ({
      seq: r.seq, id: r.id, type: r.type, merchantId: r.merchantId, paymentId: r.paymentId,
      livemode: r.livemode, data: r.data, webhookUrl: r.webhookUrl, createdAt: r.createdAt,
    })));
  }
}

export const REDIS_CHANNEL = 'gateway:realtime';
/** Relays travel on a channel of their own; every process (the publisher too) hears them. */
export const REDIS_RELAY_CHANNEL = 'gateway:realtime:relay';

/**
 * The database number of a Redis URL (`redis://host/3` or `?db=3`), 0 when none is given.
 * Pub/sub channels are server-wide in Redis, whatever database a client selected: two deployments
 * sharing one Redis server on different database numbers would hear each other's events (their
 * operators each other's support messages). The channels therefore carry the number; database 0
 * keeps the plain names, so processes of an existing deployment on it still hear each other while
 * they are upgraded one at a time.
 */
export function redisChannelSuffix(url: string): string {
  const u = new URL(url);
  const db = Number(u.searchParams.get('db') ?? (u.pathname.replace(/^\//, '') || '0'));
  return Number.isInteger(db) && db > 0 ? `:db${db}` : '';
}

/**
 * How long the dispatch transaction waits for Redis to take a batch. Meanwhile it holds the dispatch
 * lock (webhooks and settlement wait too), so a Redis that does not answer costs the sockets that
 * batch rather than holding up the outbox.
 */
export const REDIS_PUBLISH_WAIT_MS = 1000;
/** Seqs of delivered events a process remembers, to drop a batch published again (far more than one batch). */
const DELIVERED_SEQS_KEPT = 4096;

export class RedisFanout implements Fanout {
  readonly kind = 'redis';
  readonly #url: string;
  readonly #log: Logger;
  readonly #channel: string;
  readonly #relayChannel: string;
  #pub: import('ioredis').Redis | null = null;
  #sub: import('ioredis').Redis | null = null;
  /** Recently delivered seqs, oldest first (announced events have seq 0 and are never published twice). */
  readonly #delivered = new Set<number>();

  constructor(url: string, log: Logger) {
    this.#url = url;
    this.#log = log;
    const suffix = redisChannelSuffix(url);
    this.#channel = REDIS_CHANNEL + suffix;
    this.#relayChannel = REDIS_RELAY_CHANNEL + suffix;
  }

  async inTransaction(): Promise<void> {}

  /**
   * Published before the dispatch commit and waited for (see the top of this file). Never throws: a
   * Redis that is down or slow loses the batch for the sockets (at most once, as to a process that
   * is down), but never holds up the outbox's other subscribers. A client that is not connected
   * would queue the command until it is: the batch is given up at once instead.
   */
  async beforeCommit(batch: StoredEvent[]): Promise<void> {
    const pub = this.#pub;
    if (!pub || pub.status !== 'ready') {
      this.#log.warn({ events: batch.length }, 'realtime publish skipped: Redis is not connected');
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((r) => { timer = setTimeout(() => r('late'), REDIS_PUBLISH_WAIT_MS); });
    try {
      const answer = await Promise.race([pub.publish(this.#channel, JSON.stringify(batch)), late]);
      if (answer === 'late') this.#log.warn({ events: batch.length }, 'realtime publish not confirmed in time');
    } catch (err) {
      this.#log.error({ err }, 'realtime publish failed');
    } finally {
      clearTimeout(timer);
    }
  }

  /** Already published before the commit. */
  afterCommit(): void {}

  /** Published after the writer's commit. */
  async announce(): Promise<void> {}

  announced(batch: StoredEvent[]): void {
    this.#pub?.publish(this.#channel, JSON.stringify(batch)).catch((err: unknown) => this.#log.error({ err }, 'realtime publish failed'));
  }

  /** Drops the events of a batch already delivered here (published again after a failed commit). */
  #fresh(batch: StoredEvent[]): StoredEvent[] {
    const fresh = batch.filter((e) => e.seq === 0 || !this.#delivered.has(e.seq));
    for (const e of fresh) {
      if (e.seq === 0) continue;
      this.#delivered.add(e.seq);
      if (this.#delivered.size > DELIVERED_SEQS_KEPT) this.#delivered.delete(this.#delivered.values().next().value!);
    }
    return fresh;
  }

  relay(message: Relay): void {
    this.#pub?.publish(this.#relayChannel, JSON.stringify(message)).catch((err: unknown) => this.#log.warn({ err }, 'realtime relay failed'));
  }

  async start(deliver: Deliver, relayed?: DeliverRelay): Promise<void> {
    const { Redis } = await import('ioredis');
    this.#pub = new Redis(this.#url, { lazyConnect: true });
    this.#sub = new Redis(this.#url, { lazyConnect: true });
    for (const c of [this.#pub, this.#sub]) c.on('error', (err) => this.#log.warn({ err }, 'realtime redis connection error'));
    await Promise.all([this.#pub.connect(), this.#sub.connect()]);
    this.#sub.on('message', (channel: string, message: string) => {
      if (channel === this.#relayChannel) return relayed?.(JSON.parse(message) as Relay);
      if (channel !== this.#channel) return;
      const batch = this.#fresh((JSON.parse(message) as (StoredEvent & { createdAt: string })[]).map((e) => ({ ...e, createdAt: new Date(e.createdAt) })));
      if (batch.length > 0) deliver(batch);
    });
    await this.#sub.subscribe(this.#channel, this.#relayChannel);
  }

  async stop(): Promise<void> {
    await Promise.all([this.#pub?.quit().catch(() => {}), this.#sub?.quit().catch(() => {})]);
    this.#pub = null;
    this.#sub = null;
  }
}

/** Redis when configured, else PostgreSQL LISTEN/NOTIFY on a server, else in-process (PGlite). */
export function chooseFanout(db: Database, redisUrl: string | null, log: Logger): Fanout {
  if (redisUrl) return new RedisFanout(redisUrl, log);
  if (db.kind === 'postgres' && db.url) return new PgNotifyFanout(db, log);
  return new LocalFanout();
}
