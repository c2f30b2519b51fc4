// Catches a statement sent past an open transaction from inside it: on PGlite (one connection) it
// waits for that transaction's end, which waits for it, and the process hangs for good; on
// PostgreSQL it hangs the same way as soon as it needs a row the transaction holds. Tests open
// PGlite through this guard, so such a statement fails its test at once with a clear message
// instead of a timeout. Only what runs within the transaction's callback counts: work it merely
// started and that goes on after the commit is free to use the database.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Database } from '../../src/platform/db/index.ts';

export const PAST_THE_TRANSACTION = 'a statement sent outside the open transaction, from inside it: it would wait for that transaction for ever (use its tx)';

const inside = new AsyncLocalStorage<{ open: boolean; db: Database }>();

export function guardTransactions(db: Database): Database {
  const pglite = db.pglite;
  if (!pglite) return db;
  const transaction = db.transaction.bind(db);
  const past = () => { const mark = inside.getStore(); return mark?.open === true && mark.db === db; };
  db.transaction = ((fn, opts) => {
    // a second transaction opened from inside the first waits for it just the same
    if (past()) return Promise.reject(new Error(PAST_THE_TRANSACTION));
    const mark = { open: false, db };
    return inside.run(mark, () => transaction(async (tx) => {
      mark.open = true;
      try { return await fn(tx); } finally { mark.open = false; }
    }, opts));
  }) as Database['transaction'];
  for (const method of ['query', 'exec', 'transaction'] as const) {
    const original = (pglite[method] as (...a: unknown[]) => unknown).bind(pglite);
    (pglite as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      if (past()) return Promise.reject(new Error(PAST_THE_TRANSACTION));
      return original(...args);
    };
  }
  return db;
}
