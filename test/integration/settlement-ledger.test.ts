// The ledger invariant checker (npm run check:ledger) finds a balance that disagrees with its
// ledger; the CSV statement pages through ties and sub-millisecond times without losing a row.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { and, eq, sql } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { NODE, PROJECT_ROOT } from '../harness/node.ts';
import { balances, checkLedger } from '../../src/settlement/index.ts';

const run = promisify(execFile);

describeEachDb('ledger invariant and statement paging', (h) => {
  let t: TestApp;
  let acct: Account;
  beforeAll(async () => {
    t = await startTestApp(h.db());
    acct = await signupAccount(t.app);
    const res = await t.app.inject({ method: 'POST', url: '/admin/ledger/adjustments', headers: { authorization: 'Bearer test-admin-token' }, payload: { merchant_id: acct.merchant.id, livemode: true, token: 'TRX', amount: '12.5', note: 'seed' } });
    expect(res.statusCode).toBe(201);
  });
  afterAll(async () => { await t.close(); });

  const corrupt = (delta: bigint) => h.db().orm.update(balances).set({ available: sql`${balances.available} + ${delta.toString()}::numeric` })
    .where(and(eq(balances.merchantId, acct.merchant.id), eq(balances.token, 'TRX')));

  it('finds a balance that disagrees with its ledger, and nothing once it agrees', async () => {
    expect(await checkLedger(h.db().orm)).toEqual([]);
    await corrupt(1n);
    const bad = await checkLedger(h.db().orm);
    expect(bad).toEqual([{ merchant_id: acct.merchant.id, livemode: true, token: 'TRX', stored_available: '12500001', ledger_available: '12500000', stored_pending: '0', open_payouts: '0' }]);
    await corrupt(-1n);
    expect(await checkLedger(h.db().orm)).toEqual([]);
  });

  it.runIf(h.kind === 'postgres')('npm run check:ledger exits 0 when the ledger holds and 1 when it does not', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-check-'));
    const env = { ...process.env, DATABASE_URL: h.url()!, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    const script = path.join(PROJECT_ROOT, 'scripts', 'check-ledger.ts');
    const ok = await run(NODE, [script], { env });
    expect(ok.stdout).toContain('ledger ok');
    await corrupt(5n);
    try {
      const failed = await run(NODE, [script], { env }).then(() => null, (err: { code: number; stdout: string }) => err);
      expect(failed?.code).toBe(1);
      expect(failed?.stdout).toContain('1 balance(s) disagree');
    } finally {
      await corrupt(-5n);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('streams every entry once across pages, with equal and sub-millisecond times', async () => {
    const other = await signupAccount(t.app);
    // 12,001 entries: a third share one timestamp, the rest carry microseconds
    await h.db().orm.execute(sql`
      insert into ledger_entries (id, merchant_id, livemode, type, token, chain, amount, usd_amount, reference, note, created_at)
      select 'led_page_' || g, ${other.merchant.id}, false, 'adjustment', 'TRX', 'tron', g, 0, 'r' || g, null,
        case when g % 3 = 0 then timestamptz '2026-02-01' else timestamptz '2026-02-01' + g * interval '1 microsecond' end
      from generate_series(1, 12001) g`);
    const res = await t.app.inject({ method: 'GET', url: '/merchant/ledger.csv?mode=test', headers: { authorization: `Bearer ${other.accessToken}` } });
    const lines = res.body.split('\r\n').filter((l) => l !== '').slice(1);
    const ids = lines.map((l) => l.split(',')[0]);
    expect(ids).toHaveLength(12001);
    expect(new Set(ids).size).toBe(12001);
    // newest first: the largest microsecond offset leads
    expect(ids[0]).toBe('led_page_12001');
  });
});
