// The migrated PGlite data directory every test database starts from. A fresh in-memory PGlite
// runs initdb (1.3–1.8 s on the 2-core machines) and then the migrations (0.3 s); started from a
// dump of that state it opens in about 0.4 s, and the suite opens a few hundred of them. The dump
// is kept in the OS temp directory under a name that hashes the migrations and PGlite's version,
// so a changed migration or an upgraded PGlite makes a new one, and concurrent runs share it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { migrate, openPglite } from '../../src/platform/db/index.ts';
import { migrationsKey, STALE_STARTING_POINT_MS } from './migrations-key.ts';

const SNAPSHOT_DIR = path.join(os.tmpdir(), 'gw-pglite-snapshots');

function snapshotKey(): string {
  // The package's exports leave out package.json: its entry point is dist/, one level below it.
  const pgliteEntry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const version = JSON.parse(fs.readFileSync(path.join(path.dirname(pgliteEntry), '..', 'package.json'), 'utf8')).version;
  return crypto.createHash('sha256').update(`${version}\0${migrationsKey()}`).digest('hex').slice(0, 24);
}

async function writeSnapshot(file: string): Promise<Uint8Array<ArrayBuffer>> {
  const db = await openPglite(null);
  try {
    await migrate(db);
    const dump = new Uint8Array(await (await db.pglite!.dumpDataDir('none')).arrayBuffer());
    fs.mkdirSync(SNAPSHOT_DIR, { recursive: true });
    // Written aside, then renamed: a concurrent reader sees the whole dump or none.
    const partial = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
    fs.writeFileSync(partial, dump);
    fs.renameSync(partial, file);
    removeStale(path.basename(file));
    return dump;
  } finally {
    await db.close();
  }
}

function removeStale(keep: string): void {
  for (const name of fs.readdirSync(SNAPSHOT_DIR)) {
    const file = path.join(SNAPSHOT_DIR, name);
    try {
      if (name !== keep && Date.now() - fs.statSync(file).mtimeMs > STALE_STARTING_POINT_MS) fs.rmSync(file);
    } catch { /* another run removed it first */ }
  }
}

let snapshot: Promise<Blob> | null = null;

/** The migrated data directory as a tarball (made once, then read from the temp directory). */
export function migratedSnapshot(): Promise<Blob> {
  snapshot ??= (async () => {
    const file = path.join(SNAPSHOT_DIR, `${snapshotKey()}.tar`);
    let dump: Uint8Array<ArrayBuffer>;
    try {
      dump = new Uint8Array(fs.readFileSync(file));
    } catch {
      dump = await writeSnapshot(file);
    }
    return new Blob([dump]);
  })();
  return snapshot;
}
