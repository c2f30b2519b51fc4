// The project's Node.js 24 (the `node` package), for child processes: the machine's own node may be older.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const NODE = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'node');

/** The arguments `npm start` gives node (its flags, preload and src/main.ts), so a child starts exactly as it does. */
export const START_ARGS: string[] = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).scripts.start as string)
  .split(/\s+/).slice(1);
