// The database reports each change to the session that made it (migrations/0660_change_reports.sql)
// and the pool hands the reports over as it takes the connection back (src/platform/db/change-reports.ts):
// after the commit, before the caller goes on, whatever the server's client_min_messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { openTestDatabase, pgServerUrl } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { openPostgres, type Database } from '../../src/platform/db/index.ts';
import { merchants } from '../../src/accounts/index.ts';

describe.skipIf(!pgServerUrl())('changes reported to the process that made them [postgres]', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let t: TestApp;
  let acct: Account;
  let quiet: Database;
  const heard: string[] = [];

  beforeAll(async () => {
    opened = await openTestDatabase('postgres');
    t = await startTestApp(opened.db);
    acct = await signupAccount(t.app);
    // A server or role that sends the client warnings and errors only must not silence the reports.
    const url = new URL(opened.url!);
    url.searchParams.set('options', '-c client_min_messages=warning');
    quiet = await openPostgres(url.toString(), { max: 2 });
    quiet.onReported((channel, payload) => heard.push(`${channel} ${payload}`));
  });
  afterAll(async () => {
    await quiet.close();
    await t.close();
    await opened.dispose();
  });

  it('hands a transaction\'s changes over after its commit, not before', async () => {
    heard.length = 0;
    const renamed = `merchant:${acct.merchant.id}`;
    await quiet.transaction(async (tx) => {
      await tx.update(merchants).set({ name: 'Reported Ltd' }).where(eq(merchants.id, acct.merchant.id));
      expect(heard).toEqual([]);
    });
    expect(heard).toEqual([`payer_name_changed ${renamed}`]);
  });

  it('hands a lone statement\'s changes over before its caller goes on, and nothing for an unchanged name', async () => {
    heard.length = 0;
    await quiet.orm.update(merchants).set({ name: 'Reported Ltd' }).where(eq(merchants.id, acct.merchant.id));
    expect(heard).toEqual([]);
    await quiet.orm.execute(sql`update merchants set name = 'Reported Again' where id = ${acct.merchant.id}`);
    expect(heard).toEqual([`payer_name_changed merchant:${acct.merchant.id}`]);
  });
});
