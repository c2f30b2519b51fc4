// Applies the SQL files of migrations/ in name order, each once, all inside one transaction that
// holds an advisory lock: two processes starting at once apply them once, and a failure leaves
// the database as it was.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from './database.ts';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../migrations');
const MIGRATION_LOCK = 7_270_001;

/** Splits a file into statements on `;` at the end of a line, leaving dollar-quoted bodies whole. */
export function splitStatements(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let inDollar = false;
  for (const line of text.split('\n')) {
    if (line.trim().startsWith('--') && !inDollar) continue;
    current += `${line}\n`;
    const dollars = line.match(/\$\$/g)?.length ?? 0;
    if (dollars % 2 === 1) inDollar = !inDollar;
    if (!inDollar && /;\s*$/.test(line)) {
      if (current.trim()) out.push(current.trim());
      current = '';
    }
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.execute(sql`create table if not exists schema_migrations (
      name text primary key, applied_at timestamptz not null default now())`);
    const done = new Set((await queryRows<{ name: string }>(tx, sql`select name from schema_migrations`)).map((r) => r.name));
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      for (const statement of splitStatements(fs.readFileSync(path.join(dir, file), 'utf8'))) {
        await tx.execute(sql.raw(statement));
      }
      await tx.execute(sql`insert into schema_migrations (name) values (${file})`);
      applied.push(file);
    }
    return applied;
  });
}
