// The fixed error messages the source raises: every `badRequest(X)`, `unauthorized(X)`,
// `forbidden(X)`, `notFound(X)`, `conflict(X)` and `new AppError(status, X)`
// whose X is a string literal or a constant, the constant followed through the file's imports and
// re-exports to its `const X = '…'`. Messages built at run time (a function call, a template with
// parts) are left to the recorded answers of the OpenAPI test.
import fs from 'node:fs';
import path from 'node:path';

export interface RaisedMessage { file: string; line: number; message: string; status: number }

const STATUS_OF: Record<string, number> = { badRequest: 400, unauthorized: 401, forbidden: 403, notFound: 404, conflict: 409 };

const RAISE = /\b(badRequest|unauthorized|forbidden|notFound|conflict)\(\s*([A-Za-z_$][\w$]*|'(?:[^'\\]|\\.)*')\s*\)|new AppError\(\s*(\d+)\s*,\s*([A-Za-z_$][\w$]*|'(?:[^'\\]|\\.)*')\s*\)/g;
const CONST = /\bconst ([A-Za-z_$][\w$]*)\s*(?::\s*string\s*)?=\s*(?:'((?:[^'\\]|\\.)*)'|`([^`$\\]*)`)\s*;/g;
const IMPORT = /\b(?:import|export)\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'([^']+)'/g;

const unescape = (s: string): string => s.replace(/\\(.)/g, '$1');

export function raisedMessages(srcRoot: string, skip: (file: string) => boolean): RaisedMessage[] {
  const cache = new Map<string, string>();
  const read = (abs: string): string | undefined => {
    if (!cache.has(abs)) { try { cache.set(abs, fs.readFileSync(abs, 'utf8')); } catch { return undefined; } }
    return cache.get(abs);
  };
  const resolve = (abs: string, name: string, depth = 0): string | undefined => {
    const text = read(abs);
    if (text === undefined || depth > 8) return undefined;
    for (const m of text.matchAll(CONST)) if (m[1] === name) return unescape(m[2] ?? m[3]);
    for (const m of text.matchAll(IMPORT)) {
      for (const part of m[1].split(',')) {
        const [orig, alias] = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/);
        if ((alias ?? orig) !== name || !orig) continue;
        const found = resolve(path.resolve(path.dirname(abs), m[2]), orig, depth + 1);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  const out: RaisedMessage[] = [];
  const files = fs.readdirSync(srcRoot, { recursive: true }).map(String).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !skip(f));
  for (const file of files) {
    const abs = path.join(srcRoot, file);
    const text = read(abs)!;
    for (const m of text.matchAll(RAISE)) {
      const arg = m[2] ?? m[4];
      const status = m[1] ? STATUS_OF[m[1]] : Number(m[3]);
      const message = arg.startsWith("'") ? unescape(arg.slice(1, -1)) : resolve(abs, arg);
      if (message === undefined) continue;
      out.push({ file, line: text.slice(0, m.index).split('\n').length, message, status });
    }
  }
  return out;
}
