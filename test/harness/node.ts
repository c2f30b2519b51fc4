// The project's Node.js 24 (the `node` package), for child processes: the machine's own node may be older.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const NODE = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'node');
