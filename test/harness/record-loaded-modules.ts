// Preloaded with `node --import` to record every module a process loads (each URL the resolver
// hands out), written as JSON lines to LOADED_MODULES_FILE when the process exits. Lets a test see
// what a command really loads rather than what its source seems to import.
import fs from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.LOADED_MODULES_FILE;
if (file) {
  const loaded = new Set<string>();
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      loaded.add(resolved.url);
      return resolved;
    },
  });
  process.on('exit', () => fs.writeFileSync(file, [...loaded].join('\n')));
}
