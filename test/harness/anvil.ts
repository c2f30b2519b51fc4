// Real local EVM nodes for the chain tests: anvil (npm @foundry-rs/anvil-linux-amd64, its ELF binary
// spawned directly so the PID we kill is the node itself), one process per chain id (1 for Ethereum,
// 56 for BNB Smart Chain), automining, with its state kept in a file so a stopped node restarts on
// the same port with the same blocks (an outage, not a new chain). Plus the test ERC-20.
import { spawn, type ChildProcess } from 'node:child_process';
import { holdOutside, stopChild } from './held-outside.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createPublicClient, createTestClient, createWalletClient, http, type Address, type Hex, type PublicClient,
  type TestClient, type WalletClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { freePort } from './process.ts';
import { PROJECT_ROOT } from './node.ts';
import { ARTIFACT_FILE, artifactFile, type TestTokenArtifact } from '../../scripts/compile-test-token.ts';

export const ANVIL_BIN = path.join(PROJECT_ROOT, 'node_modules', '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil');

/** anvil's first well-known dev account (10,000 ETH at genesis): funds customers and hot wallets in tests. */
export const FUNDER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export interface AnvilNode {
  readonly chainId: number;
  readonly port: number;
  readonly url: string;
  /** Clients with caching off: tests mine faster than viem's default cache time. */
  readonly client: PublicClient;
  readonly test: TestClient<'anvil'>;
  readonly funder: PrivateKeyAccount;
  readonly wallet: WalletClient;
  /** Mines `blocks` blocks now. */
  mine(blocks?: number): Promise<void>;
  /** Stops the node (its state is written to its file); `start()` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its files. */
  close(): Promise<void>;
}

export function anvilAvailable(): boolean {
  return fs.existsSync(ANVIL_BIN);
}

/**
 * Starts anvil for `chainId` on a free port; `blockTime` (seconds) turns interval mining on;
 * `hardfork` an older rule set (`berlin`: blocks without a base fee, legacy gas prices only).
 */
export async function startAnvil(opts: { chainId: number; blockTime?: number; hardfork?: string }): Promise<AnvilNode> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `anvil-${opts.chainId}-`));
  const args = [
    '--host', '127.0.0.1', '--port', String(port), '--chain-id', String(opts.chainId),
    '--state', path.join(dir, 'state.json'), '-j', '1', '--silent',
    ...(opts.blockTime ? ['--block-time', String(opts.blockTime)] : []),
    ...(opts.hardfork ? ['--hardfork', opts.hardfork] : []),
  ];
  let child: ChildProcess | null = null;
  const url = `http://127.0.0.1:${port}`;
  const transport = http(url, { retryCount: 0 });
  const client = createPublicClient({ transport, cacheTime: 0 }) as PublicClient;
  const test = createTestClient({ mode: 'anvil', transport, cacheTime: 0 });
  const funder = privateKeyToAccount(FUNDER_KEY);
  const wallet = createWalletClient({ account: funder, transport, cacheTime: 0 });

  const start = async () => {
    if (child) return;
    // nice: the node must never starve the service under test on a 2-core machine.
    const proc = spawn('nice', ['-n', '10', ANVIL_BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d) => { stderr += d; });
    child = proc;
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`anvil exited (${proc.exitCode}): ${stderr}`);
      try {
        await client.getChainId();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`anvil not answering on ${url}: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const stop = async () => {
    const proc = child;
    if (!proc) return;
    child = null;
    // SIGTERM lets anvil write its state file; `nice` execs anvil, so this PID is the node.
    await stopChild(proc);
  };
  await start();
  return {
    chainId: opts.chainId, port, url, client, test, funder, wallet,
    mine: async (blocks = 1) => { await test.mine({ blocks }); },
    stop, start,
    close: holdOutside(async () => { await stop(); fs.rmSync(dir, { recursive: true, force: true }); }),
  };
}

export function testTokenArtifact(): TestTokenArtifact {
  return JSON.parse(fs.readFileSync(ARTIFACT_FILE, 'utf8')) as TestTokenArtifact;
}

/** Deploys the test ERC-20 from the funder; returns its address once mined. */
export async function deployTestToken(node: AnvilNode, opts: { name?: string; symbol?: string; decimals: number }): Promise<Address> {
  const { abi, bytecode } = testTokenArtifact();
  const hash = await node.wallet.deployContract({
    abi, bytecode, account: node.funder, chain: null,
    args: [opts.name ?? 'Test Tether', opts.symbol ?? 'USDT', opts.decimals],
  });
  const receipt = await node.client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  if (!receipt.contractAddress) throw new Error('test token deployment failed');
  return receipt.contractAddress;
}

export function forwarderArtifact(): TestTokenArtifact {
  return JSON.parse(fs.readFileSync(artifactFile('Forwarder'), 'utf8')) as TestTokenArtifact;
}

/** Deploys the test Forwarder (test/fixtures/evm/Forwarder.sol) from the funder; returns its address once mined. */
export async function deployForwarder(node: AnvilNode): Promise<Address> {
  const { abi, bytecode } = forwarderArtifact();
  const hash = await node.wallet.deployContract({ abi, bytecode, account: node.funder, chain: null });
  const receipt = await node.client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  if (!receipt.contractAddress) throw new Error('forwarder deployment failed');
  return receipt.contractAddress;
}

/** The test token's ABI, for writeContract/readContract in tests. */
export const testTokenAbi = (): readonly unknown[] => testTokenArtifact().abi;

/** Skips a chain test file with one printed line when anvil cannot be run here. */
export function anvilOrSkip(): boolean {
  if (anvilAvailable()) return true;
  console.log(`EVM chain tests skipped: ${path.relative(PROJECT_ROOT, ANVIL_BIN)} is absent (npm ci installs it)`);
  return false;
}

