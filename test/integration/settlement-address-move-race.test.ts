// Two changes of one payout address at the same moment (spec 4.4: moving an address or its tag needs
// the member's password and restarts its activation): the second is judged against the row as its
// transaction finds it under the coin's lock, not as it read it before. A PATCH without a password
// that would put back the address the first one just replaced is a move, refused as one.
// PostgreSQL only: PGlite has one connection, so two transactions cannot be open at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, asc, eq } from 'drizzle-orm';
import pg from 'pg';
import { openTestDatabase, pgServerUrl } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount } from '../harness/accounts.ts';
import { ADDR, addMember, type Member } from '../harness/settlement.ts';
import type { Database } from '../../src/platform/db/index.ts';
import { auditEntries } from '../../src/accounts/schema.ts';
import { payoutAddresses } from '../../src/settlement/index.ts';
import { untilLockWaiters } from '../harness/lock-waits.ts';

const skip = !pgServerUrl();
if (skip) console.log('payout address move race skipped: no PostgreSQL server');

describe.skipIf(skip)('two changes of one payout address at once [postgres]', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Database;
  let t: TestApp;
  let merchantId: string;
  let owner: Member;

  beforeAll(async () => {
    opened = await openTestDatabase('postgres');
    db = opened.db;
    t = await startTestApp(db);
    merchantId = (await signupAccount(t.app)).merchant.id;
    owner = await addMember(t, merchantId, 'owner');
  });
  afterAll(async () => {
    await t?.close();
    await opened?.dispose();
  });

  const call = async (method: 'POST' | 'PATCH', url: string, payload: Record<string, unknown>) =>
    t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${await owner.token()}` }, remoteAddress: randomIp() });

  const blocked = (n: number) => untilLockWaiters(db, n);

  it('refuses a PATCH without password that would move the address back to the one just replaced', async () => {
    const added = await call('POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON, password: owner.password });
    expect(added.statusCode, added.body).toBe(201);
    const id = added.json().address.id as string;
    const [stored] = await db.orm.select().from(payoutAddresses).where(eq(payoutAddresses.id, id));

    // another connection holds the coin's lock (the one every change of its addresses takes), so both
    // requests read the row first and then queue for the lock, the one with the password ahead
    const locker = new pg.Client({ connectionString: opened.url! });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('select pg_advisory_xact_lock(hashtext($1))', [`pa:${merchantId}:true:USDT_TRC20`]);
      const move = call('PATCH', `/merchant/payout-addresses/${id}`, { address: ADDR.TRON_2, password: owner.password });
      await blocked(1);
      const back = call('PATCH', `/merchant/payout-addresses/${id}`, { address: ADDR.TRON });
      await blocked(2);
      await locker.query('commit');
      const [moved, undone] = await Promise.all([move, back]);
      expect(moved.statusCode, moved.body).toBe(200);
      expect(moved.json().address.address).toBe(ADDR.TRON_2);
      expect([undone.statusCode, undone.json()]).toEqual([403, { error: 'password is incorrect' }]);
    } finally {
      await locker.end();
    }

    // the address stays where the member with the password moved it, its activation restarted once
    const [row] = await db.orm.select().from(payoutAddresses).where(eq(payoutAddresses.id, id));
    expect(row.address).toBe(ADDR.TRON_2);
    expect(row.activeAt.getTime()).toBeGreaterThan(stored.activeAt.getTime());
    const changes = await db.orm.select().from(auditEntries).where(and(eq(auditEntries.subject, id), eq(auditEntries.action, 'payout_address.updated'))).orderBy(asc(auditEntries.at), asc(auditEntries.id));
    expect(changes.map((c) => c.note)).toEqual(['added', 'changed']);
  });

  it('lets the same PATCH through with the password, judged against the row it replaces', async () => {
    const added = await call('POST', '/merchant/payout-addresses', { token: 'USDT_BEP20', address: ADDR.EVM, password: owner.password });
    expect(added.statusCode, added.body).toBe(201);
    const id = added.json().address.id as string;
    const locker = new pg.Client({ connectionString: opened.url! });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('select pg_advisory_xact_lock(hashtext($1))', [`pa:${merchantId}:true:USDT_BEP20`]);
      const move = call('PATCH', `/merchant/payout-addresses/${id}`, { address: ADDR.EVM_2, password: owner.password });
      await blocked(1);
      const back = call('PATCH', `/merchant/payout-addresses/${id}`, { address: ADDR.EVM, password: owner.password });
      await blocked(2);
      await locker.query('commit');
      const [moved, undone] = await Promise.all([move, back]);
      expect(moved.statusCode, moved.body).toBe(200);
      expect(undone.statusCode, undone.body).toBe(200);
    } finally {
      await locker.end();
    }
    const [row] = await db.orm.select().from(payoutAddresses).where(eq(payoutAddresses.id, id));
    const changes = await db.orm.select().from(auditEntries).where(and(eq(auditEntries.subject, id), eq(auditEntries.action, 'payout_address.updated'))).orderBy(asc(auditEntries.at), asc(auditEntries.id));
    expect(changes.map((c) => c.note)).toEqual(['added', 'changed', 'changed']);
    // moved back, so its activation restarts as for any move (a day in live mode)
    expect(row.address).toBe(ADDR.EVM);
    expect(row.activeAt.getTime()).toBeGreaterThan(row.updatedAt.getTime());
  });
});
