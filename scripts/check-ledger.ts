// `npm run check:ledger`: recomputes every balance from the ledger and compares it with the
// stored balance, on the configured database (DATABASE_URL, or the embedded one in DATA_DIR).
// Exits 1 and prints each mismatch when any balance disagrees.
import { loadConfig } from '../src/config.ts';
import { migrate, openDatabase } from '../src/platform/db/index.ts';
import { checkLedger } from '../src/settlement/check-ledger.ts';

const db = await openDatabase(loadConfig());
try {
  await migrate(db);
  const bad = await checkLedger(db.orm);
  if (bad.length === 0) {
    process.stdout.write('ledger ok: every balance equals its ledger\n');
  } else {
    for (const m of bad) process.stdout.write(`${JSON.stringify(m)}\n`);
    process.stdout.write(`ledger check failed: ${bad.length} balance(s) disagree with the ledger\n`);
    process.exitCode = 1;
  }
} finally {
  await db.close();
}
