// The changes to what this process keeps views of, on a few NOTIFY channels, heard from two sides:
// - every process's changes, announced by the database after they commit (LISTEN on a connection
//   of its own; on PGlite, PGlite's listen(), which hears this process's own NOTIFY with the
//   COMMIT's answer, before the transaction's caller goes on);
// - this process's own changes, reported by the database to the session that made them as the pool
//   takes the connection back (change-reports.ts), so that a view kept here is never older than a
//   change made here, not even before that change's NOTIFY comes round.
// A view may be kept only while the feed is active (listening): subscribers are told to forget
// everything whenever listening starts or stops (a lost connection may have missed notices), and
// reads go to the database until it listens again.
import type pg from 'pg';
import type { Database } from './database.ts';
import type { Logger } from '../logger.ts';

const RECONNECT_MS = 1000;

export interface ChangeSubscriber {
  /** A change on one of the feed's channels, with the payload of its NOTIFY. */
  changed(channel: string, payload: string): void;
  /** Forget everything: listening started or stopped. */
  reset(): void;
}

export class ChangeFeed {
  readonly #db: Database;
  readonly #log: Logger;
  readonly #channels: ReadonlySet<string>;
  readonly #subscribers = new Set<ChangeSubscriber>();
  #listening = false;
  #client: pg.Client | null = null;
  #starting: Promise<void> | null = null;
  #closed = false;
  #retry: NodeJS.Timeout | null = null;
  #stopPglite: (() => Promise<void>) | null = null;
  readonly #unreport: () => void;

  constructor(db: Database, log: Logger, channels: readonly string[]) {
    this.#db = db;
    this.#log = log;
    this.#channels = new Set(channels);
    this.#unreport = db.onReported((channel, payload) => this.#heard(channel, payload));
  }

  /** Whether views may be kept (while listening). */
  get active(): boolean {
    return this.#listening && !this.#closed;
  }

  subscribe(s: ChangeSubscriber): () => void {
    this.#subscribers.add(s);
    return () => this.#subscribers.delete(s);
  }

  /**
   * Starts listening, unless it is, is starting, or waits to try again after a failure (callers ask
   * on every read while it is not listening: a database refusing connections would otherwise get
   * one from each request).
   */
  start(): void {
    if (this.#starting || this.#listening || this.#closed || this.#retry) return;
    if (this.#db.pglite) this.#starting = this.#listenPglite().finally(() => { this.#starting = null; });
    else if (this.#db.url) this.#starting = this.#listen().finally(() => { this.#starting = null; });
  }

  #heard(channel: string, payload: string): void {
    if (!this.#channels.has(channel)) return;
    for (const s of this.#subscribers) s.changed(channel, payload);
  }

  #reset(): void {
    for (const s of this.#subscribers) s.reset();
  }

  async #listenPglite(): Promise<void> {
    const stops: (() => Promise<void>)[] = [];
    this.#stopPglite = async () => { for (const stop of stops) await stop(); };
    try {
      for (const channel of this.#channels) stops.push(await this.#db.pglite!.listen(channel, (payload) => this.#heard(channel, payload)));
    } catch (err) {
      this.#log.warn({ err }, 'change feed: cannot listen for changes; keeping no views');
      await this.#stopPglite().catch(() => {});
      return;
    }
    if (this.#closed) { await this.#stopPglite().catch(() => {}); return; }
    this.#reset();
    this.#listening = true;
  }

  async #listen(): Promise<void> {
    const { default: pgModule } = await import('pg');
    const client = new pgModule.Client({ connectionString: this.#db.url! });
    const lost = (err?: Error) => {
      if (this.#client !== client) return;
      this.#client = null;
      this.#listening = false;
      this.#reset();
      client.end().catch(() => {});
      if (this.#closed) return;
      if (err) this.#log.warn({ err }, 'change feed: lost the database notices; keeping no views until they are back');
      this.#retry = setTimeout(() => { this.#retry = null; this.start(); }, RECONNECT_MS);
      this.#retry.unref();
    };
    client.on('notification', (n) => { if (n.payload) this.#heard(n.channel, n.payload); });
    client.on('error', (err) => lost(err));
    client.on('end', () => lost());
    this.#client = client;
    try {
      await client.connect();
      for (const channel of this.#channels) await client.query(`listen ${channel}`);
    } catch (err) {
      lost(err as Error);
      return;
    }
    if (this.#closed) { await client.end().catch(() => {}); return; }
    // Anything kept before was forgotten when listening stopped; from here on every change is heard.
    this.#reset();
    this.#listening = true;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unreport();
    if (this.#retry) clearTimeout(this.#retry);
    await this.#starting;
    const client = this.#client;
    this.#client = null;
    this.#listening = false;
    this.#reset();
    await client?.end().catch(() => {});
    await this.#stopPglite?.().catch(() => {});
  }
}
