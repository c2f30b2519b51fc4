// A short hash of the project's migrations (names and contents): what names the tests' migrated
// starting points (pglite-snapshot.ts, pg-template.ts), so a changed migration makes new ones.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MIGRATIONS_DIR } from '../../src/platform/db/index.ts';

/** Starting points of other migrations older than this are removed when a new one is made. */
export const STALE_STARTING_POINT_MS = 60 * 60_000;

export function migrationsKey(): string {
  const hash = crypto.createHash('sha256');
  for (const file of fs.readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort()) {
    hash.update(`\0${file}\0`).update(fs.readFileSync(path.join(MIGRATIONS_DIR, file)));
  }
  return hash.digest('hex').slice(0, 24);
}
