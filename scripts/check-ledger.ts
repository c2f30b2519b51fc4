// `npm run check:ledger`: recomputes every balance from the ledger and compares it with the
// stored balance, and every referral balance from its entries and payouts, on the configured
// database (DATABASE_URL, or the embedded one in DATA_DIR). Exits 1 and prints each mismatch
// when any balance disagrees.
import { loadConfig } from '../src/config.ts';
import { migrate, openDatabase } from '../src/platform/db/index.ts';
import { checkLedger } from '../src/settlement/check-ledger.ts';
import { checkReferralBalances } from '../src/affiliate/check.ts';

const db = await openDatabase(loadConfig());
try {
  await migrate(db);
  const bad = await checkLedger(db.orm);
  const referral = await checkReferralBalances(db.orm);
  if (bad.length === 0 && referral.length === 0) {
    process.stdout.write('ledger ok: every balance equals its ledger\n');
  } else {
    for (const m of [...bad, ...referral]) process.stdout.write(`${JSON.stringify(m)}\n`);
    process.stdout.write(`ledger check failed: ${bad.length} balance(s) disagree with the ledger, ${referral.length} referral balance(s) with their entries\n`);
    process.exitCode = 1;
  }
} finally {
  await db.close();
}
