// Starts the real service (`node … src/main.ts`) as a child process, with the arguments `npm start` uses.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
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

/** A chain simulator (`test/sim/<name>/main.ts`) in a child process of its own, so it outlives a kill of the service. */
export async function spawnSimulator(entry: string, port: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(NODE, ['--experimental-strip-types', '--no-warnings', entry, String(port)], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => { out += d; const m = /listening (\S+)/.exec(out); if (m) resolve(m[1]); });
    child.on('exit', (c) => reject(new Error(`the simulator exited (${c})`)));
  });
  return { url, child };
}

/** A webhook receiver for a service in another process: the id and type of every event it got, in order. */
export async function eventReceiver(): Promise<{ got: Array<{ id: string; type: string }>; url: string; close: () => Promise<void> }> {
  const got: Array<{ id: string; type: string }> = [];
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => { const e = JSON.parse(body); got.push({ id: e.id, type: e.type }); res.writeHead(200).end(); });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { got, url: `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}/hook`, close: () => new Promise<void>((r) => { srv.closeAllConnections(); srv.close(() => r()); }) };
}
