// Starts the real service (`node … src/main.ts`) as a child process, with the arguments `npm start` uses.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { NODE, PROJECT_ROOT, startArgs } from './node.ts';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnService(env: Record<string, string>): ServiceProcess {
  let out = '';
  const child = spawn(NODE, startArgs(env), {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, output: () => out, exited };
}

/** Waits until the output says `listening on`, or fails with the output when the process exits first. */
export async function waitListening(p: ServiceProcess, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void p.exited.then(() => { exited = true; });
  while (!/listening on /.test(p.output())) {
    if (exited) throw new Error(`service exited before listening:\n${p.output()}`);
    if (Date.now() > deadline) throw new Error(`service not listening after ${timeoutMs} ms:\n${p.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Kills the service with SIGKILL the moment `moment` resolves (a crash at that point). */
export async function killWhen(p: ServiceProcess, moment: Promise<unknown>): Promise<void> {
  await moment;
  p.child.kill('SIGKILL');
  const { signal } = await p.exited;
  if (signal !== 'SIGKILL') throw new Error(`the service ended with ${signal ?? 'no signal'}, not SIGKILL`);
}
