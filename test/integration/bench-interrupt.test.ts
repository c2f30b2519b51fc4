// A bench stopped early lets go of what it holds outside its process (bench/_interrupt.ts,
// test/harness/held-outside.ts): its scratch database is dropped and its helper processes stopped,
// whether it is interrupted (Ctrl-C), killed, or its output pipe closes (`| head`).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { NODE } from '../harness/node.ts';

const SCRIPT = path.resolve(import.meta.dirname, '../fixtures/holding-bench.ts');
const serverUrl = inject('pgUrl');

async function databaseExists(name: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try { return (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1; } finally { await c.end(); }
}

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

/** Starts the miniature bench; resolves once it holds its database and helper. */
async function startHolding() {
  const child = spawn(NODE, [SCRIPT, serverUrl], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (l) => { lines.close(); resolve(l); });
    void exited.then(() => reject(new Error(`exited first: ${stderr}`)));
  });
  const held = JSON.parse(first) as { database: string; helper: number };
  return { child, held, exited, stderr: () => stderr };
}

describe.skipIf(!serverUrl)('a bench stopped early', () => {
  it('lets go of its database and processes when its output pipe closes', async () => {
    const { child, held, exited, stderr } = await startHolding();
    expect(await databaseExists(held.database)).toBe(true);
    expect(alive(held.helper)).toBe(true);
    // as `| head` does once it has read enough: the bench's next write fails with EPIPE
    child.stdout.destroy();
    expect(await exited).toEqual({ code: 141, signal: null });
    expect(stderr()).toContain('bench stopped (output closed)');
    expect(await databaseExists(held.database)).toBe(false);
    expect(alive(held.helper)).toBe(false);
  });

  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`lets go of them on ${signal}`, async () => {
      const { child, held, exited } = await startHolding();
      child.kill(signal);
      expect(await exited).toEqual({ code, signal: null });
      expect(await databaseExists(held.database)).toBe(false);
      expect(alive(held.helper)).toBe(false);
    });
  }
});
