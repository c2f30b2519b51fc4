// Upgrading a database made before the referral program (migrations/0700_referrals.sql): every
// merchant that existed gets a code of its own, and the first signup after it gets one too.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { MIGRATIONS_DIR, migrate, queryRows } from '../../src/platform/db/index.ts';
import { openScratchDatabase } from '../harness/scratch-db.ts';
import { pgServerUrl } from '../harness/databases.ts';

for (const kind of ['pglite', 'postgres'] as const) {
  it.skipIf(kind === 'postgres' && !pgServerUrl())(`gives every existing merchant a distinct code of 8 characters A-Z0-9 [${kind}]`, async () => {
    const before = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-migrations-'));
    for (const f of fs.readdirSync(MIGRATIONS_DIR)) if (f < '0700') fs.copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(before, f));
    const scratch = await openScratchDatabase(kind, { serverUrl: pgServerUrl(), migrationsDir: before });
    try {
      const { db } = scratch;
      await db.orm.execute(sql`insert into merchants (id, name, created_at, updated_at)
        select 'mer_' || n, 'Shop ' || n, now() - n * interval '1 day', now() from generate_series(1, 300) as n`);
      expect(await migrate(db)).toContain('0700_referrals.sql');
      const rows = await queryRows<{ merchant_id: string; code: string; available: string; created_at: Date }>(db.orm, sql`
        select a.merchant_id, a.code, a.available::text as available, a.created_at from affiliates a order by a.merchant_id`);
      expect(rows).toHaveLength(300);
      expect(rows.every((r) => /^[A-Z0-9]{8}$/.test(r.code) && r.available === '0')).toBe(true);
      expect(new Set(rows.map((r) => r.code)).size).toBe(300);
    } finally {
      await scratch.drop();
      fs.rmSync(before, { recursive: true, force: true });
    }
  });
}
