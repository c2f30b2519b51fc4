// The chain families' libraries are loaded only for the chains that have a node
// (src/chains/sending/chain-kits.ts): a gateway with none (test mode needs none) holds none of
// them, about 15 MB of JavaScript heap all together.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { NODE, PROJECT_ROOT } from '../harness/node.ts';

const SCRIPT = path.resolve(import.meta.dirname, '../fixtures/boot-loads.ts');
const CHAIN_LIBRARIES = ['viem', 'ox', '@scure/btc-signer', 'ripple-binary-codec'];

/** The packages a service composed with these chain nodes loads (no node is contacted). */
async function packagesLoaded(nodes: Record<string, string>): Promise<string[]> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...nodes };
  const { stdout } = await promisify(execFile)(NODE, [SCRIPT], { cwd: PROJECT_ROOT, env, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').pop()!) as string[];
}

describe('chain libraries', () => {
  it('none is loaded without a chain node', async () => {
    const loaded = await packagesLoaded({});
    // the composition itself was loaded (the check sees packages at all)
    expect(loaded).toContain('fastify');
    expect(loaded.filter((p) => CHAIN_LIBRARIES.includes(p))).toEqual([]);
  }, 60_000);

  it('an Ethereum node loads the EVM libraries and no other chain family', async () => {
    const loaded = await packagesLoaded({ ETHEREUM_RPC_URL: 'http://127.0.0.1:9' });
    expect(loaded).toContain('viem');
    expect(loaded.filter((p) => ['@scure/btc-signer', 'ripple-binary-codec'].includes(p))).toEqual([]);
  }, 60_000);
});
