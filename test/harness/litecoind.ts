// A real Litecoin node for the Bitcoin-family chain tests: Debian's litecoind 0.21 in regtest, run in
// the foreground (the real binary, not Debian's wrapper that writes under ~/.litecoin) so the PID we
// stop is the node's. Its own wallet `miner` plays the customer (101 blocks mined at start, so it can
// spend); the gateway never uses a node wallet. Data lives in a temporary directory, so a stopped
// node restarts on the same port with the same chain (an outage, not a new chain).
//
// Keep a test chain below block 432: MWEB activates there on regtest and needs a peg-in first
// (see the shared notes on chain nodes).
import { spawn, type ChildProcess } from 'node:child_process';
import { holdOutside, stopChild } from './held-outside.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { callJsonRpc } from '../../src/chains/rpc/json-rpc.ts';
import { freePort } from './process.ts';

export const LITECOIND_BIN = '/usr/lib/litecoin/litecoind';
const USER = 'test';
const PASSWORD = 'test';

export interface LitecoinNode {
  readonly port: number;
  /** `http://test:test@127.0.0.1:<port>`: what LITECOIN_RPC_URL takes. */
  readonly url: string;
  /** A call to the node; `wallet` names a node wallet (e.g. `miner`). */
  rpc<T = unknown>(method: string, params?: unknown[], wallet?: string): Promise<T>;
  /** A fresh address of the `miner` wallet (bech32). */
  minerAddress(): Promise<string>;
  /** Mines `blocks` blocks to the miner; returns their hashes. */
  mine(blocks?: number): Promise<string[]>;
  /** Sends `amount` (a decimal string of LTC) from the miner to `address`; returns the txid. */
  pay(address: string, amount: string): Promise<string>;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Node's fetch reads its connection pool (undici's global dispatcher) from here on every call. */
const FETCH_DISPATCHER = Symbol.for('undici.globalDispatcher.1');
type Dispatcher = { close(): Promise<void> };

/**
 * Closes the connections fetch keeps open in this process (to every host: a test only makes new
 * ones), once their requests in flight are answered: a fresh pool of the same kind takes the
 * calls from now on.
 */
function closeIdleConnections(): Promise<void> {
  const holder = globalThis as unknown as Record<symbol, Dispatcher | undefined>;
  const pool = holder[FETCH_DISPATCHER];
  // no fetch yet in this process: no connections
  if (!pool) return Promise.resolve();
  holder[FETCH_DISPATCHER] = new (pool.constructor as new () => Dispatcher)();
  return pool.close();
}

export function litecoindAvailable(): boolean {
  return fs.existsSync(LITECOIND_BIN);
}

/** Skips a file of Litecoin tests with one printed line when litecoind is not installed. */
export function litecoindOrSkip(): boolean {
  if (litecoindAvailable()) return true;
  console.log(`Litecoin chain tests skipped: ${LITECOIND_BIN} is absent (apt-get install -y litecoind)`);
  return false;
}

export async function startLitecoind(): Promise<LitecoinNode> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'litecoind-'));
  const base = `http://${USER}:${PASSWORD}@127.0.0.1:${port}`;
  const args = [
    '-regtest', `-datadir=${dir}`, '-server=1', '-listen=0', '-connect=0', '-dnsseed=0', '-upnp=0', '-discover=0',
    '-rpcbind=127.0.0.1', '-rpcallowip=127.0.0.1', `-rpcport=${port}`, `-rpcuser=${USER}`, `-rpcpassword=${PASSWORD}`,
    '-fallbackfee=0.0002', '-txindex=1', '-keypool=20', '-mempoolreplacement=1', '-printtoconsole=0',
  ];
  let child: ChildProcess | null = null;
  const rpc = async <T>(method: string, params: unknown[] = [], wallet?: string): Promise<T> =>
    (await callJsonRpc(wallet ? `${base}/wallet/${wallet}` : base, { method, params }, 30_000)) as T;

  const start = async () => {
    if (child) return;
    const proc = spawn('nice', ['-n', '10', LITECOIND_BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d) => { stderr += d; });
    child = proc;
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`litecoind exited (${proc.exitCode}): ${stderr}`);
      try {
        await rpc('getblockcount');
        return;
      } catch {
        // Refused until the RPC server is up, then "Loading block index…" (-28) until ready.
        if (Date.now() > deadline) throw new Error(`litecoind not ready on port ${port}: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const stop = async () => {
    const proc = child;
    if (!proc) return;
    child = null;
    // litecoind 0.21 stops only once every HTTP connection to it is closed, and fetch keeps this
    // process's ones (the harness's calls, the gateway's) open for 4 s after their last request:
    // a stop right after a call waited those seconds before the node's own 0.2 s of shutdown
    const idle = closeIdleConnections();
    await Promise.all([stopChild(proc), idle]);
  };

  await start();
  await rpc('createwallet', ['miner']);
  const minerAddress = () => rpc<string>('getnewaddress', ['', 'bech32'], 'miner');
  const mine = async (blocks = 1) => rpc<string[]>('generatetoaddress', [blocks, await minerAddress()]);
  await mine(101);
  return {
    port, url: base, rpc, minerAddress, mine,
    pay: (address, amount) => rpc<string>('sendtoaddress', [address, amount], 'miner'),
    stop,
    start: async () => {
      await start();
      // The wallet is not loaded again by itself after a restart.
      await rpc('loadwallet', ['miner']).catch(() => {});
    },
    close: holdOutside(async () => { await stop(); fs.rmSync(dir, { recursive: true, force: true }); }),
  };
}
