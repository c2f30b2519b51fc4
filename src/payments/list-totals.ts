// The payments list's `total` without counting every row on each page, on the embedded engine.
// PGlite counts the merchant's rows on the request's thread (100,000 rows: tens of milliseconds
// to a few hundred on a busy machine, most of the list's time), and the dashboard asks for the
// same unfiltered total on every page and reload. A statement-level trigger moves the sequence
// `payments_changes` whenever payments are added, removed or moved between merchants or modes
// (migration 1150); a total counted at one value of it holds while the value does not move.
//
// Exact only where transactions run one after another: on PGlite a query waits for an open
// transaction, so no count can miss rows of a transaction that moved the counter before it. The
// counter is read before the count: rows committed in between make a total newer than its key,
// and the next page counts again. PostgreSQL (concurrent transactions) always counts.
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../platform/db/index.ts';

/** Scopes kept at most (merchant and mode); past it the oldest are forgotten. */
const MAX_SCOPES = 10_000;

export class ListTotals {
  readonly #byScope = new Map<string, { at: string; total: number }>();

  /** The total of `scope`, from the last count while payments have not changed since, else `count()`. */
  async total(ex: Executor, scope: string, count: () => Promise<number>): Promise<number> {
    const [{ at }] = await queryRows<{ at: string }>(ex, sql`select last_value::text || (case when is_called then '+' else '' end) as at from payments_changes`);
    const kept = this.#byScope.get(scope);
    if (kept && kept.at === at) return kept.total;
    const total = await count();
    this.#byScope.delete(scope);
    this.#byScope.set(scope, { at, total });
    if (this.#byScope.size > MAX_SCOPES) this.#byScope.delete(this.#byScope.keys().next().value!);
    return total;
  }
}
