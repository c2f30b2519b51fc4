// Imported by every bench that holds something outside its process (a scratch database, a chain
// node, a baseline or server process: test/harness/held-outside.ts). A bench stopped early by
// Ctrl-C, a kill or its output pipe closing (`| head` once it has read enough) lets go of all of
// it before it exits; without this the database stayed on the server and the processes kept
// running, as the bench's own cleanup (its `finally`) never ran.
import { releaseAllHeld } from '../test/harness/held-outside.ts';

/** Most time given to letting go before the bench exits anyway. */
const RELEASE_TIMEOUT_MS = 20_000;
let stopping = false;

async function stopEarly(code: number, why: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  // What the bench was doing fails as its database and processes go away: that is expected now.
  process.on('uncaughtException', () => {});
  process.on('unhandledRejection', () => {});
  // stderr may be the closed pipe too: a failed write must not stop the release
  process.stderr.write(`bench stopped (${why}): letting go of what it holds\n`, () => {});
  setTimeout(() => process.exit(code), RELEASE_TIMEOUT_MS).unref();
  await releaseAllHeld();
  process.exit(code);
}

// exit codes as a shell reports a process ended by the signal (128 + its number)
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
  process.on(signal, () => void stopEarly(code, signal));
}
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    void stopEarly(141, 'output closed');
  });
}
