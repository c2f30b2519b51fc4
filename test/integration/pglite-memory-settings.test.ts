// PGlite keeps all of its shared memory resident (src/platform/db/connect.ts): the settings that size
// it must reach the database it opens, in memory as in DATA_DIR, whatever postgresql.conf says.
import { expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openPglite, queryRows } from '../../src/platform/db/index.ts';

it('PGlite opens with 16 MB of shared buffers and 5 connections: 21 MB of shared memory in all', async () => {
  const db = await openPglite(null);
  try {
    const rows = await queryRows<{ name: string; setting: string; unit: string | null }>(db.orm,
      sql`select name, setting, unit from pg_settings where name in ('shared_buffers', 'max_connections', 'shared_memory_size') order by name`);
    expect(rows.map((r) => [r.name, r.setting, r.unit])).toEqual([
      ['max_connections', '5', null],
      ['shared_buffers', '2048', '8kB'],
      ['shared_memory_size', '21', 'MB'],
    ]);
  } finally {
    await db.close();
  }
});
