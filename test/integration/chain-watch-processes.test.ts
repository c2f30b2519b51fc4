// Two real service processes against one PostgreSQL database (issue 13: "each chain is watched by
// one of them at a time, and another takes over within seconds when that process dies"): the first
// takes the chain, the second stands by; after kill -9 of the first, a payment made on chain is
// found by the second within seconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Address } from 'viem';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { anvilOrSkip, startAnvil, type AnvilNode } from '../harness/anvil.ts';
import { openTestDatabase, pgServerUrl } from '../harness/databases.ts';
import { freePort, spawnService, waitListening, type ServiceProcess } from '../harness/process.ts';
import { startTestApp, TEST_SERVICE_ENV, type TestApp } from '../harness/app.ts';
import { createLivePayment, merchantWithAddresses, owed } from '../harness/chain-send.ts';
import { payments } from '../../src/payments/index.ts';
import { chainCursors } from '../../src/chains/watch/index.ts';

const WATCHING = 'this process watches the chain';

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.runIf(anvilOrSkip() && !!pgServerUrl())('two service processes, one database', () => {
  let node: AnvilNode;
  let db: Awaited<ReturnType<typeof openTestDatabase>>;
  let t: TestApp;
  const procs: ServiceProcess[] = [];
  const mnemonic = generateMnemonic(wordlist);
  const dirs: string[] = [];

  beforeAll(async () => {
    node = await startAnvil({ chainId: 1 });
    db = await openTestDatabase('postgres');
    // creates the merchant and the payment; never watches (no workers, no watcher pass in process)
    t = await startTestApp(db.db, { env: { ETHEREUM_RPC_URL: node.url, WALLET_MNEMONIC: mnemonic, CONFIRMATIONS_ETHEREUM: '3' } });
  });
  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) { p.child.kill('SIGKILL'); await p.exited; }
    await t?.close();
    await db?.dispose();
    await node?.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  const spawn = async (): Promise<ServiceProcess> => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-watch-'));
    dirs.push(dir);
    const p = spawnService({
      PORT: String(await freePort()), DATA_DIR: dir, DATABASE_URL: db.url!, ETHEREUM_RPC_URL: node.url, WALLET_MNEMONIC: mnemonic,
      ...TEST_SERVICE_ENV, CONFIRMATIONS_ETHEREUM: '3', CHAIN_POLL_MS: '200', LOG_LEVEL: 'info',
    });
    procs.push(p);
    await waitListening(p);
    return p;
  };

  it('the second process takes the chain over within seconds of kill -9 of the first, and finds the payment', async () => {
    const a = await spawn();
    await until('the first process to take the chain', async () => a.output().includes(WATCHING) && (await db.db.orm.select().from(chainCursors).where(eq(chainCursors.chain, 'ethereum')))[0]);
    const b = await spawn();
    // the second stands by while the first lives (several of its polls)
    await new Promise((r) => setTimeout(r, 1500));
    expect(b.output()).not.toContain(WATCHING);

    const m = await merchantWithAddresses(t, ['ETH']);
    const p = await createLivePayment(t, m, 'ETH');
    const killedAt = Date.now();
    a.child.kill('SIGKILL');
    await a.exited;
    await node.wallet.sendTransaction({ account: node.funder, to: p.deposit_address as Address, value: owed(p), chain: null });
    await until('the payment to be detected', async () => {
      const [row] = await db.db.orm.select({ status: payments.status }).from(payments).where(eq(payments.id, p.id));
      return row.status === 'detecting';
    }, 30_000);
    const tookMs = Date.now() - killedAt;
    console.log(`chain watch takeover: payment detected ${tookMs} ms after kill -9 of the watching process`);
    expect(tookMs).toBeLessThan(10_000);
    expect(b.output()).toContain(WATCHING);
  }, 180_000);
});
