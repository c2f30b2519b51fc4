// One query layer over two engines: PostgreSQL through `pg`, or embedded PGlite in DATA_DIR.
// Drizzle gives both the same query builder; `Database.transaction` is the only way to change
// state together with its outbox event, and tells listeners after every commit.
import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { ChangeReportListener } from './change-reports.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Orm = PgDatabase<PgQueryResultHKT, Record<string, never>>;
export type Tx = PgTransaction<PgQueryResultHKT, Record<string, never>, any>;
/** Anything that runs queries: the database itself or an open transaction. */
export type Executor = Orm | Tx;

export type EngineKind = 'pglite' | 'postgres';

export class Database {
  readonly kind: EngineKind;
  readonly orm: Orm;
  /** The embedded engine (PGlite) when kind is 'pglite'. */
  readonly pglite: PGlite | null;
  /** The connection pool when kind is 'postgres'. */
  readonly pool: pg.Pool | null;
  /** Connection string of the server, for components with connections of their own (LISTEN, the socket fan-out, chain locks). */
  readonly url: string | null;
  readonly #close: () => Promise<void>;
  readonly #commitListeners = new Set<() => void>();
  readonly #reportListeners = new Set<ChangeReportListener>();

  constructor(opts: { kind: EngineKind; orm: Orm; pglite?: PGlite; pool?: pg.Pool; url?: string; close: () => Promise<void> }) {
    this.kind = opts.kind;
    this.orm = opts.orm;
    this.pglite = opts.pglite ?? null;
    this.pool = opts.pool ?? null;
    this.url = opts.url ?? null;
    this.#close = opts.close;
  }

  /**
   * Runs fn in one transaction; commits when it resolves, rolls back when it throws.
   * `silent` skips the commit listeners (the dispatcher's own transactions, which must not wake it).
   */
  async transaction<T>(fn: (tx: Tx) => Promise<T>, opts: { silent?: boolean } = {}): Promise<T> {
    const result = await this.orm.transaction(fn as (tx: any) => Promise<T>);
    if (!opts.silent) for (const listener of this.#commitListeners) listener();
    return result;
  }

  /** Called after every committed transaction (the outbox dispatcher uses it to wake up at once). */
  onCommit(listener: () => void): () => void {
    this.#commitListeners.add(listener);
    return () => this.#commitListeners.delete(listener);
  }

  /**
   * Called with each change this process's statements made (channel and payload of its NOTIFY), as
   * the database reports it (change-reports.ts), after it committed and before its caller goes on.
   * PostgreSQL only: PGlite drops notices, and hears its own NOTIFY with the COMMIT's answer.
   */
  onReported(listener: ChangeReportListener): () => void {
    this.#reportListeners.add(listener);
    return () => this.#reportListeners.delete(listener);
  }

  /** Passes a reported change on to the listeners (the pool's connections call it). */
  reported(channel: string, payload: string): void {
    for (const listener of this.#reportListeners) listener(channel, payload);
  }

  async close(): Promise<void> {
    await this.#close();
  }
}

/**
 * Rows of a statement given as text and values, on either engine. With a `name` it is a named
 * statement on PostgreSQL's pool: each pooled connection parses and plans it once, then only binds
 * values (PGlite runs the same text as is).
 */
export async function queryText<T>(db: Database, name: string | null, text: string, values: unknown[]): Promise<T[]> {
  if (db.pool) return (await db.pool.query<T & object>(name ? { name, text, values } : { text, values })).rows;
  return (await db.pglite!.query<T>(text, values)).rows;
}

/** Rows of a raw SQL query, on either engine. */
export async function queryRows<T>(ex: Executor, query: SQL): Promise<T[]> {
  const res = (await ex.execute(query)) as unknown as { rows: T[] };
  return res.rows;
}
