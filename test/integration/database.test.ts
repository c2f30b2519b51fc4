// The database layer on both engines: migrations once and safely, base units as bigint.
import { expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import { pgTable, text } from 'drizzle-orm/pg-core';
import fs from 'node:fs';
import path from 'node:path';
import { createPgDatabase, describeEachDb } from '../harness/databases.ts';
import { PROJECT_ROOT } from '../harness/node.ts';
import { baseUnits, migrate, openPostgres, queryRows, splitStatements } from '../../src/platform/db/index.ts';
import { POOL_IDLE_MS } from '../../src/platform/db/connect.ts';

const amounts = pgTable('amount_probe', { id: text('id').primaryKey(), units: baseUnits('units').notNull() });

describeEachDb('database', (h) => {
  it('applies each migration once (a second run applies nothing)', async () => {
    expect(await migrate(h.db())).toEqual([]);
    const rows = await queryRows<{ name: string }>(h.db().orm, sql`select name from schema_migrations order by name`);
    expect(rows.map((r) => r.name)).toContain('0001_platform.sql');
  });

  it('round-trips NUMERIC(78,0) base units as bigint, beyond 2^64', async () => {
    const db = h.db();
    await db.orm.execute(sql`create table amount_probe (id text primary key, units numeric(78,0) not null)`);
    const big = 2n ** 200n + 12345n;
    await db.orm.insert(amounts).values([{ id: 'a', units: big }, { id: 'b', units: 1n }, { id: 'c', units: 0n }]);
    const rows = await db.orm.select().from(amounts).orderBy(amounts.id);
    expect(rows.map((r) => r.units)).toEqual([big, 1n, 0n]);
    expect(typeof rows[0].units).toBe('bigint');
  });

  // A quiet pause must not cost the next burst new connections and fresh plans (connect.ts POOL_IDLE_MS).
  it.skipIf(h.kind !== 'postgres')('keeps idle pooled connections for minutes, not pg\'s 10 s', async () => {
    const db = await openPostgres(h.url()!);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await Promise.all([1, 2, 3, 4, 5].map(() => db.pool!.query('select pg_sleep(0.05)')));
      expect(db.pool!.totalCount).toBe(5);
      vi.advanceTimersByTime(60_000);
      expect(db.pool!.idleCount).toBe(5);
      vi.advanceTimersByTime(POOL_IDLE_MS);
      expect(db.pool!.totalCount).toBe(0);
    } finally {
      vi.useRealTimers();
      await db.close();
    }
  });

  // PGlite is one process by construction. On an empty database: this suite's own is migrated already,
  // where every runner has nothing to do whether or not they take turns.
  it.skipIf(h.kind !== 'postgres')('migrates safely when several runners start at once', async () => {
    const fresh = await createPgDatabase();
    const dbs = await Promise.all([1, 2, 3].map(() => openPostgres(fresh.url)));
    try {
      const results = await Promise.all(dbs.map((d) => migrate(d)));
      // one runner applies every migration, once; the others wait for it and find nothing left
      const all = fs.readdirSync(path.join(PROJECT_ROOT, 'migrations')).filter((f) => f.endsWith('.sql')).sort();
      expect(results.map((r) => r.length).sort((a, b) => a - b)).toEqual([0, 0, all.length]);
      expect(results.flat()).toEqual(all);
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
      await fresh.drop();
    }
  });
});

it('splits migration files into statements, keeping dollar-quoted bodies whole', () => {
  const text = `-- comment\ncreate table a (x int);\ncreate function f() returns int as $$\nbegin\n  return 1;\nend;\n$$ language plpgsql;\ninsert into a values (1);`;
  expect(splitStatements(text)).toEqual([
    'create table a (x int);',
    'create function f() returns int as $$\nbegin\n  return 1;\nend;\n$$ language plpgsql;',
    'insert into a values (1);',
  ]);
});
