// GET /merchant/ledger.csv over 100,000 ledger entries: time to stream the whole statement and
// the process's resident memory while it streams (it must stay flat: keyset pages, not one array).
// Uses the PostgreSQL server of TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test)
// in a fresh database, else embedded PGlite. Run: node_modules/.bin/node bench/ledger-csv.ts [entries]
import './_interrupt.ts';
import { sql } from 'drizzle-orm';
import type { Database } from '../src/platform/db/index.ts';
import { openScratchDatabase, testServerUrl } from '../test/harness/scratch-db.ts';
import { startTestApp } from '../test/harness/app.ts';
import { signupAccount } from '../test/harness/accounts.ts';

const ENTRIES = Number(process.argv[2] ?? 100_000);
const SERVER = testServerUrl();

async function openDb(): Promise<{ db: Database; engine: string; drop: () => Promise<void> }> {
  try {
    return { ...(await openScratchDatabase('postgres', { serverUrl: SERVER, prefix: 'gw_bench' })), engine: 'postgresql' };
  } catch {
    return { ...(await openScratchDatabase('pglite')), engine: 'pglite' };
  }
}

const { db, engine, drop } = await openDb();
const t = await startTestApp(db);
const acct = await signupAccount(t.app);
const insertStart = performance.now();
// one statement: distinct millisecond times, a note with a comma and quotes on every 7th entry
await db.orm.execute(sql`
  insert into ledger_entries (id, merchant_id, livemode, type, token, chain, amount, usd_amount, reference, note, created_at)
  select 'led_bench_' || g, ${acct.merchant.id}, true,
    (array['payment_credit','fee','network_fee','settlement'])[1 + g % 4], 'USDT_TRC20', 'tron',
    case when g % 4 = 0 then 1000000 + g else -(1000 + g) end, (g % 1000) / 100.0,
    'pay_' || (g / 4) || ':tx_' || g, case when g % 7 = 0 then 'split, "part" ' || g end,
    timestamptz '2026-01-01' + g * interval '1 millisecond'
  from generate_series(1, ${ENTRIES}) g`);
// a real statement this size has planner statistics (autovacuum); a bulk insert has none yet
await db.orm.execute(sql`analyze ledger_entries`);
const insertMs = performance.now() - insertStart;

const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
global.gc?.();
const baseline = process.memoryUsage().rss;
let peak = baseline;
const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 10);

const start = performance.now();
const res = await fetch(`${address}/merchant/ledger.csv`, { headers: { authorization: `Bearer ${acct.accessToken}` } });
let bytes = 0;
let records = 0;
let prev = 0;
const reader = res.body!.getReader();
for (;;) {
  const { done, value } = await reader.read();
  if (done) break;
  bytes += value.length;
  for (let i = 0; i < value.length; i++) if (value[i] === 10 && (i > 0 ? value[i - 1] : prev) === 13) records++;
  prev = value[value.length - 1];
}
const ms = performance.now() - start;
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);

await t.close();
await drop();
const mb = (n: number): string => (n / 1024 / 1024).toFixed(1);
process.stdout.write(`ledger.csv on ${engine}: ${ENTRIES} entries (inserted in ${insertMs.toFixed(0)} ms), status ${res.status}, ` +
  `${records - 1} records, ${mb(bytes)} MB streamed in ${ms.toFixed(0)} ms; RSS ${mb(baseline)} MB before, peak ${mb(peak)} MB ` +
  `(+${mb(peak - baseline)} MB, the CSV itself is ${mb(bytes)} MB)\n`);
if (records - 1 !== ENTRIES) process.exitCode = 1;
