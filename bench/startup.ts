// Start to `listening on`: PGlite with a fresh DATA_DIR, PGlite with an existing one, PostgreSQL;
// against a baseline of a bare Node HTTP server started the same way. Then idle resident memory
// of the service on PGlite (target < 200 MB).
import './_interrupt.ts';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPgDatabase, testServerUrl } from '../test/harness/scratch-db.ts';
import { PROJECT_ROOT as root, startArgs } from '../test/harness/node.ts';
import { holdProcess } from '../test/harness/held-outside.ts';

const node = process.execPath;
/** The service is started exactly as `npm start` does, with the same Node flags. */
const MAIN = startArgs({});

function start(args: string[], env: Record<string, string>): Promise<{ ms: number; pid: number; stop: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(node, args, { cwd: root, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const stop = holdProcess(child);
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      if (/listening on /.test(out)) {
        child.stdout!.off('data', onData);
        resolve({
          ms: performance.now() - t0, pid: child.pid!,
          stop,
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d) => { out += d; });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

const rssMb = (pid: number): number => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
};

const port = 39000 + Math.floor(Math.random() * 1000);
const bare = await start(['-e', `require('node:http').createServer((q,s)=>s.end('ok')).listen(${port},()=>console.log('listening on x'))`], {});
await bare.stop();
const baseline = bare.ms;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-start-'));
const env = { PORT: String(port), DATA_DIR: dataDir };
const fresh = await start(MAIN, env);
await fresh.stop();
const existing = await start(MAIN, env);
await existing.stop();
// Idle memory: three starts on the existing DATA_DIR, each read after 5 s of idling; the median.
const idleSamples: number[] = [];
for (let i = 0; i < 3; i++) {
  const run = await start(MAIN, env);
  await new Promise((r) => setTimeout(r, 5000));
  idleSamples.push(rssMb(run.pid));
  await run.stop();
}
const idle = idleSamples.sort((a, b) => a - b)[1];

let pgMs: number | null = null;
try {
  const created = await createPgDatabase(testServerUrl(), 'gw_bench');
  const onPg = await start(startArgs({ DATABASE_URL: created.url }), { ...env, DATABASE_URL: created.url });
  pgMs = onPg.ms;
  await onPg.stop();
  await created.drop();
} catch (err) {
  console.log(`PostgreSQL part skipped: ${(err as Error).message}`);
}
fs.rmSync(dataDir, { recursive: true, force: true });

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s (${(ms / baseline).toFixed(1)}× bare node ${(baseline / 1000).toFixed(2)} s)`;
console.log(`start to listening, PGlite fresh DATA_DIR:    ${s(fresh.ms)}`);
console.log(`start to listening, PGlite existing DATA_DIR: ${s(existing.ms)}`);
if (pgMs !== null) console.log(`start to listening, PostgreSQL (fresh db):    ${s(pgMs)}`);
console.log(`idle resident memory on PGlite: ${idle.toFixed(0)} MB median of ${idleSamples.map((v) => v.toFixed(0)).join(', ')} (target < 200 MB)`);
