// The developer CLI starts in a fraction of a second: it loads the SDK, commander and the few
// names it shares with the server (simulation outcomes, the /listen protocol, webhook signing),
// never the server's own modules. A barrel import (`src/payments/index.ts` for one constant) once
// made `gateway --help` load the whole service: 1.1 s and 270 MB for a help text.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');

/** Packages only the server uses: the CLI loading one means it pulled in a server module. */
const SERVER_PACKAGES = ['fastify', 'drizzle-orm', 'pg', '@electric-sql/pglite', 'socket.io', 'ioredis', 'pino', 'viem', 'decimal.js', 'nodemailer'];

async function loadedBy(args: string[]): Promise<string[]> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cli-modules-')), 'loaded.txt');
  try {
    await run(NODE, ['--import', './test/harness/record-loaded-modules.ts', 'bin/gateway.ts', ...args], {
      cwd: ROOT, env: { ...process.env, LOADED_MODULES_FILE: file },
    });
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

describe('gateway CLI start-up', () => {
  it('loads none of the server\'s packages or its database layer, and only the few of its files the CLI speaks', async () => {
    const loaded = await loadedBy(['--help']);
    // the recorder works: commander and the SDK are there
    expect(loaded.some((u) => u.includes('/node_modules/commander/'))).toBe(true);
    expect(loaded.some((u) => u.endsWith('/sdk/src/index.ts'))).toBe(true);
    const serverPackages = SERVER_PACKAGES.filter((p) => loaded.some((u) => u.includes(`/node_modules/${p}/`)));
    expect(serverPackages).toEqual([]);
    // of our own files: the names the CLI shares with the server, webhook signing and sending, and
    // the platform files those need (errors, clock); no service, no database layer
    const ours = loaded.filter((u) => u.startsWith(`file://${ROOT}/src/`)).map((u) => u.slice(`file://${ROOT}/`.length));
    const SHARED = /^src\/(webhooks\/[\w-]+|platform\/[\w-]+|listen\/protocol|payments\/simulation-outcomes)\.ts$/;
    expect(ours.filter((f) => !SHARED.test(f))).toEqual([]);
    expect(ours).toContain('src/payments/simulation-outcomes.ts');
    expect(ours).toContain('src/listen/protocol.ts');
  });
});
