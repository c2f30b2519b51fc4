// What a test or bench holds outside its own process (a scratch database on the server, a chain
// node, a helper process), each with the way to let it go. Its owner lets each go as before; this
// list is for a bench stopped early (Ctrl-C, a kill, its output pipe closed by `| head`), which lets
// go of all of it before it exits (bench/_interrupt.ts) instead of leaving a database on the server
// and processes running.
import type { ChildProcess } from 'node:child_process';

const held = new Set<() => Promise<void>>();

/**
 * Registers something held outside this process; returns its release, which runs `release` once
 * (a second call waits for the first) and takes it off the list.
 */
export function holdOutside(release: () => Promise<void>): () => Promise<void> {
  let released: Promise<void> | undefined;
  const once = () => {
    held.delete(once);
    return (released ??= release());
  };
  held.add(once);
  return once;
}

/** Stops a child process (SIGTERM, which lets a node write its state) and waits until it has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Registers a child process; its release stops it. */
export function holdProcess(child: ChildProcess): () => Promise<void> {
  return holdOutside(() => stopChild(child));
}

/** Lets go of everything still held, the latest first (a node before the database it writes to); failures are reported, not thrown. */
export async function releaseAllHeld(): Promise<void> {
  for (const release of [...held].reverse()) {
    await release().catch((err: unknown) => console.error(`could not release: ${err instanceof Error ? err.message : String(err)}`));
  }
}
