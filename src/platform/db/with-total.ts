// A page of rows and the count of every row its filter matches, asked in parallel (two pooled
// connections when there are; one after the other on PGlite): the `{…, total, limit, offset}` lists.
import { count, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from './database.ts';

export async function withTotal<T>(ex: Executor, table: PgTable, where: SQL | undefined, page: Promise<T[]>): Promise<{ rows: T[]; total: number }> {
  const [rows, [{ n }]] = await Promise.all([page, ex.select({ n: count() }).from(table).where(where)]);
  return { rows, total: Number(n) };
}
