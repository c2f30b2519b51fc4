// Builds the web pages (web/pages.ts) with Vite: `npm run build:web`, and `npm ci` through the
// `prepare` script. `ensureWebBuilt()` (npm start, the test suite) rebuilds only when a source file
// of web/ is newer than the last build, in a child process so the server never loads Vite.
// Without Vite (an install without dev dependencies) nothing is built: ship web/dist/ built.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DIST_DIR, WEB_DIR, WEB_PAGES, pageDistDir, type WebPageName } from './pages.ts';

const ROOT = path.resolve(WEB_DIR, '..');
const THIS_FILE = fileURLToPath(import.meta.url);
/** Written last by a build: its time is the build's. */
const STAMP = path.join(DIST_DIR, '.built');
/** Sources outside web/ that pages import (the token catalog) also make a build stale. */
const EXTRA_SOURCES = [path.join(ROOT, 'vite.config.ts'), path.join(ROOT, 'src/tokens')];

function newestMtime(p: string): number {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of fs.readdirSync(p)) {
    if (p === WEB_DIR && entry === 'dist') continue;
    newest = Math.max(newest, newestMtime(path.join(p, entry)));
  }
  return newest;
}

/** Whether a page is missing from web/dist/ or a source changed since the last build. */
export function webBuildIsStale(): boolean {
  const built = fs.statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return true;
  if ((Object.keys(WEB_PAGES) as WebPageName[]).some((p) => !fs.existsSync(path.join(pageDistDir(p), 'index.html')))) return true;
  return Math.max(newestMtime(WEB_DIR), ...EXTRA_SOURCES.map(newestMtime)) > built;
}

const viteInstalled = (): boolean => fs.existsSync(path.join(ROOT, 'node_modules/vite/package.json'));

/** Builds every page (in this process). */
export async function buildWeb(): Promise<void> {
  const { build } = await import('vite');
  for (const page of Object.keys(WEB_PAGES)) {
    await build({ configFile: path.join(ROOT, 'vite.config.ts'), mode: page });
  }
  fs.writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}

/**
 * Rebuilds when stale and Vite is there; returns what it did ('failed': the last build stays).
 * Runs the build in a child process (Vite and its bundler stay out of the server's memory).
 */
export function ensureWebBuilt(): 'fresh' | 'built' | 'no-vite' | 'failed' {
  if (!webBuildIsStale()) return 'fresh';
  if (!viteInstalled()) return 'no-vite';
  const r = spawnSync(process.execPath, [THIS_FILE], { cwd: ROOT, stdio: 'inherit' });
  return r.status === 0 ? 'built' : 'failed';
}

if (process.argv[1] && path.resolve(process.argv[1]) === THIS_FILE) {
  if (!viteInstalled()) {
    console.log('web pages not built: Vite is not installed (dev dependencies); serve a web/dist/ built elsewhere');
  } else {
    await buildWeb();
  }
}
