// P5 (issue 13): the watched-address index with 1,000,000 live deposit addresses. Reports the
// index's memory (target < 200 MB), the time to match a block of 5,000 transfers against it
// (target < 10 ms, no RPC), and the time to rebuild it at start from PostgreSQL, as a ratio to a
// baseline run in a separate process: the narrowest read of the same rows with bare `pg`.
// Run: node_modules/.bin/node bench/chain-watch-index.ts [addresses]
import './_interrupt.ts';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { sql } from 'drizzle-orm';
import { openScratchDatabase } from '../test/harness/scratch-db.ts';
import { AddressIndex, matchTransfers, type ObservedTransfer } from '../src/chains/watch/index.ts';
import { WatchedAddresses } from '../src/chains/watch/watched-addresses.ts';

const N = Number(process.argv[2] ?? 1_000_000);
const BLOCK = 5_000;
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const heap = () => { gc(); const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };

// Memory: the index alone, filled as the rebuild fills it.
const before = heap();
const index = new AddressIndex();
for (let i = 0; i < N; i++) index.add(address(i));
const grown = heap() - before;
console.log(`P5 index of ${N.toLocaleString('en')} addresses: ${mb(index.bytes)} MB of table, ${mb(grown)} MB heap + buffers (target < 200 MB)`);

// Matching: a block of 5,000 transfers, 1% of them to watched addresses.
const block: ObservedTransfer[] = Array.from({ length: BLOCK }, (_, i) => ({
  txId: `0x${i.toString(16).padStart(64, '0')}`, token: 'ETH', amount: 1n,
  to: i % 100 === 0 ? address(i * 97 % N) : address(N + 1 + i * 7919),
}));
const runs: number[] = [];
let found = 0;
for (let r = 0; r < 100; r++) {
  const t0 = performance.now();
  found = matchTransfers(index, block).length;
  runs.push(performance.now() - t0);
}
console.log(`P5 match a block of ${BLOCK} transfers: median ${median(runs).toFixed(2)} ms, max ${Math.max(...runs).toFixed(2)} ms over 100 runs, ${found} matched (target < 10 ms)`);

// Rebuild from PostgreSQL: N live payments with addresses, written with FK checks off (bench rows only).
const { db, url, drop } = await openScratchDatabase('postgres', { prefix: 'gw_bench' });
try {
  const t0 = performance.now();
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.execute(sql`insert into payments (id, merchant_id, livemode, order_id, status, token, chain, deposit_address, usd_amount, amount_due_usd,
      settings, checkout_token, expires_at, created_at, updated_at)
      select 'pay_' || lpad(i::text, 10, '0'), 'mer_bench', true, 'o' || i, 'expired', 'ETH', 'ethereum', '0x' || lpad(to_hex(i), 40, '0'),
        10, 10, '{}'::jsonb, 'ct' || i, now() - interval '2 days', now() - interval '2 days', now() - interval '2 days'
      from generate_series(0, ${N - 1}) as i`);
  });
  await db.orm.execute(sql`analyze payments`);
  console.log(`(${N.toLocaleString('en')} payments written in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  const base = spawnSync(process.execPath, [path.join(path.dirname(fileURLToPath(import.meta.url)), '_chain-watch-index-baseline.ts'), url!], { encoding: 'utf8' });
  if (base.status !== 0) throw new Error(`baseline failed: ${base.stderr}`);
  const baselineMs = Number(base.stdout.trim());
  const w = new WatchedAddresses(db, 'ethereum', (a) => a.toLowerCase());
  gc();
  const r0 = performance.now();
  await w.rebuild();
  const rebuildMs = performance.now() - r0;
  console.log(`P5 rebuild of the index at start: ${(rebuildMs / 1000).toFixed(2)} s for ${w.size.toLocaleString('en')} addresses; baseline (bare pg, one query of the addresses, separate process) ${(baselineMs / 1000).toFixed(2)} s; ratio ${(rebuildMs / baselineMs).toFixed(2)}`);
} finally {
  await drop();
}
