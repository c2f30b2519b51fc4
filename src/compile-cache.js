// Preloaded by `npm start` (`--import`) before src/main.ts. JavaScript on purpose: Node strips the
// types of every .ts file with a WebAssembly compiler that stays resident (~15 MB) once loaded; with
// the compile cache on before the first .ts file, later starts reuse the stripped code (and V8's
// bytecode) from disk, never load that compiler, and reach `listening on` sooner.
// The cache lives with the installed code (node_modules/.cache), so it survives reboots and is
// dropped with a reinstall; entries are keyed by file content, so an edited file is compiled again.
// NODE_COMPILE_CACHE chooses another directory, NODE_DISABLE_COMPILE_CACHE=1 turns it off; a
// directory that cannot be written only means no cache.
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
module.enableCompileCache(process.env.NODE_COMPILE_CACHE || path.join(root, 'node_modules', '.cache', 'node-compile-cache'));
