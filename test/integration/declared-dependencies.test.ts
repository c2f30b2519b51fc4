// package.json's two lists say what an operator's `npm ci --omit=dev` installs: every package the
// running gateway imports (src/, the CLI in bin/, the SDK in sdk/src/) must be a dependency, and
// every dependency must be imported by that code (a package only tests use is a devDependency).
import { expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../harness/node.ts';

/** `node` is the runtime itself: `npm start` runs the Node 24 it installs (node_modules/.bin/node). */
const NOT_IMPORTED = new Set(['node']);
const PRODUCTION_DIRS = ['src', 'bin', 'sdk/src'];
/** A bare specifier in an import, a dynamic import, import.meta.resolve or require. */
const SPECIFIER = /(?:from\s+|import\s*\(\s*|import\.meta\.resolve\(\s*|require\(\s*|import\s+)['"]([^'"./][^'"]*)['"]/g;

function productionFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return productionFiles(p);
    return /\.(ts|js|mjs)$/.test(e.name) && !/\.test\./.test(e.name) ? [p] : [];
  });
}

const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

it('the running code imports every dependency, and only dependencies', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const imported = new Map<string, string>();
  for (const file of PRODUCTION_DIRS.flatMap((d) => productionFiles(path.join(PROJECT_ROOT, d)))) {
    for (const [, specifier] of fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (specifier.startsWith('node:')) continue;
      imported.set(packageOf(specifier), path.relative(PROJECT_ROOT, file));
    }
  }
  const declared = Object.keys(pkg.dependencies);
  expect([...imported].filter(([name]) => !declared.includes(name)).map(([name, file]) => `${name} (${file})`)).toEqual([]);
  expect(declared.filter((name) => !imported.has(name) && !NOT_IMPORTED.has(name))).toEqual([]);
});
