// Imported first by a bench whose service runs in its own process: runs that process again with the
// Node flags `npm start` gives the service on PostgreSQL (young generation size, compile cache), so
// the service is measured as it runs. Flags given to this process (e.g. --cpu-prof) are kept.
import { spawnSync } from 'node:child_process';
import { NODE_FLAGS_SET, PROJECT_ROOT, startArgs } from '../test/harness/node.ts';

if (!process.env[NODE_FLAGS_SET]) {
  // Ctrl-C reaches both processes: this one waits for the bench to let go of what it holds
  // (bench/_interrupt.ts) and exits with it, rather than giving the shell back first.
  process.on('SIGINT', () => {});
  const args = startArgs({ DATABASE_URL: 'postgres://' });
  const flags = args.slice(0, args.indexOf('src/main.ts'));
  const r = spawnSync(process.execPath, [...flags, ...process.execArgv, ...process.argv.slice(1)], {
    cwd: PROJECT_ROOT, stdio: 'inherit', env: { ...process.env, [NODE_FLAGS_SET]: '1' },
  });
  process.exit(r.status ?? 1);
}
