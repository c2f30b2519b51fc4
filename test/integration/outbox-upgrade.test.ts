// Upgrading a database from the outbox that marked rows (events.dispatched_at) to the queue of
// pending seqs (migrations/0003_outbox_pending.sql): events still waiting stay waiting, and only they.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { MIGRATIONS_DIR, migrate, openPglite, queryRows } from '../../src/platform/db/index.ts';
import { OutboxDispatcher, type StoredEvent } from '../../src/events/index.ts';
import { createLogger } from '../../src/platform/logger.ts';

it('keeps the events a database had not dispatched, and only those, waiting after the upgrade', async () => {
  const before = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-migrations-'));
  for (const f of fs.readdirSync(MIGRATIONS_DIR)) if (f < '0003') fs.copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(before, f));
  const db = await openPglite(null);
  try {
    await migrate(db, before);
    await db.orm.execute(sql`insert into events (id, type, livemode, data, created_at, dispatched_at) values
      ('ev_done', 'probe.done', false, '{}', now(), now()),
      ('ev_waiting_1', 'probe.waiting', false, '{"n":1}', now(), null),
      ('ev_waiting_2', 'probe.waiting', false, '{"n":2}', now(), null)`);
    expect(await migrate(db)).toContain('0003_outbox_pending.sql');
    const d = new OutboxDispatcher(db, createLogger('silent'));
    const seen: StoredEvent[] = [];
    d.subscribe({ name: 'recorder', handle: async (_tx, batch) => { seen.push(...batch); } });
    expect(await d.drainNow()).toBe(2);
    expect(seen.map((e) => e.id)).toEqual(['ev_waiting_1', 'ev_waiting_2']);
    expect(seen.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
    const left = await queryRows<{ n: number }>(db.orm, sql`select count(*)::int as n from outbox_pending`);
    expect(left[0].n).toBe(0);
  } finally {
    await db.close();
    fs.rmSync(before, { recursive: true, force: true });
  }
});
