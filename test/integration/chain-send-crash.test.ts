// kill -9 of the real service during a token settlement's transfers, on anvil: once with its signed
// gas top-up stored but not yet broadcast (the node stalls), once with it broadcast and mined but
// the answer never back. After restarts nothing is lost and nothing is sent twice: the same signed
// bytes are broadcast again, the hot wallet and the deposit address each used exactly the nonces
// their transfers needed, and the merchant received exactly `net`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import type { Address } from 'viem';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { anvilOrSkip, deployTestToken, startAnvil, type AnvilNode } from '../harness/anvil.ts';
import { broadcastProxy } from '../harness/broadcast-proxy.ts';
import { freePort, killWhen, spawnService, waitListening } from '../harness/process.ts';
import { createPgDatabase, pgServerUrl } from '../harness/databases.ts';
import { TEST_SERVICE_ENV } from '../harness/app.ts';
import type { Json } from '../harness/payments.ts';
import {
  ADMIN, balanceOf, createLivePayment, driveUntil, fundHotWallet, hotWallet, merchantWithAddresses, owed, pay, reportDeposit, settlementsOf,
  startChainApp, type EvmNodes,
} from '../harness/chain-send.ts';
import { migrate, openPglite, openPostgres, queryRows, type Database } from '../../src/platform/db/index.ts';
import { parseUnits } from '../../src/money/index.ts';
import { outgoingAttempts, outgoingTransfers } from '../../src/chains/transfers/index.ts';

describe.runIf(anvilOrSkip())('kill -9 during a settlement\'s transfers', () => {
  let eth: AnvilNode;
  let bsc: AnvilNode;
  let nodes: EvmNodes;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    [eth, bsc] = await Promise.all([startAnvil({ chainId: 1 }), startAnvil({ chainId: 56 })]);
    nodes = { eth, bsc, usdtErc20: await deployTestToken(eth, { decimals: 6 }), usdtBep20: await deployTestToken(bsc, { decimals: 18 }) };
  });
  afterAll(async () => {
    for (const c of cleanups) await c();
    await Promise.all([eth?.close(), bsc?.close()]);
  });

  /** The service's environment; `db` is DATA_DIR (PGlite) or DATABASE_URL. */
  const env = (db: Record<string, string>, rpc: string, mnemonic: string): Record<string, string> => ({
    ...db, ...TEST_SERVICE_ENV, WALLET_MNEMONIC: mnemonic,
    ETHEREUM_RPC_URL: rpc, BSC_RPC_URL: bsc.url, TOKEN_CONTRACTS: `USDT_ERC20=${nodes.usdtErc20},USDT_BEP20=${nodes.usdtBep20}`,
    CONFIRMATIONS_ETHEREUM: '2', CHAIN_POLL_MS: '100', SETTLEMENT_DELAY_S: '0',
  });

  /** A live USDT_ERC20 payment paid on chain and confirmed in-process: its settlement's transfers are recorded, nothing sent. */
  async function prepare(db: Database, mnemonic: string): Promise<{ p: Json; s: Json; merchant: string; hot: Address }> {
    const t = await startChainApp(db, nodes, { WALLET_MNEMONIC: mnemonic, CONFIRMATIONS_ETHEREUM: '2' });
    try {
      const m = await merchantWithAddresses(t, ['USDT_ERC20']);
      const p = await createLivePayment(t, m, 'USDT_ERC20');
      const paid = await pay(nodes, 'USDT_ERC20', p.deposit_address, owed(p));
      await reportDeposit(t, p.deposit_address, 'USDT_ERC20', paid, owed(p));
      const [s] = await settlementsOf(t, p.id);
      expect(s.status).toBe('pending');
      const hot = (await hotWallet(t, 'ethereum')).address as Address;
      await fundHotWallet(nodes, 'ethereum', hot, 10n ** 17n);
      return { p, s, merchant: m.addresses.USDT_ERC20!, hot };
    } finally {
      await t.close();
    }
  }

  async function scenario(dbEnv: Record<string, string>, open: () => Promise<Database>): Promise<void> {
    const mnemonic = generateMnemonic(wordlist);
    const proxy = await broadcastProxy(eth.url);
    cleanups.push(proxy.close);
    const db = await open();
    await migrate(db);
    const { p, s, merchant, hot } = await prepare(db, mnemonic);
    await db.close();
    const deposit = p.deposit_address as Address;

    // 1. the gas top-up is signed and stored, its broadcast never reaches the node: killed
    proxy.mode = 'stall';
    const port = await freePort();
    const first = spawnService({ PORT: String(port), ...env(dbEnv, proxy.url, mnemonic) });
    cleanups.push(async () => { first.child.kill('SIGKILL'); });
    await waitListening(first);
    await killWhen(first, proxy.sawBroadcast());
    expect(await eth.client.getTransactionCount({ address: hot })).toBe(0);
    const signedRaw = proxy.broadcasts[0];

    // 2. the same bytes go out again, the node mines them, the answer is lost: killed
    proxy.mode = 'no-answer';
    const second = spawnService({ PORT: String(port), ...env(dbEnv, proxy.url, mnemonic) });
    cleanups.push(async () => { second.child.kill('SIGKILL'); });
    await waitListening(second);
    const again = await proxy.sawBroadcast();
    expect(again).toBe(signedRaw);
    await killWhen(second, (async () => { while (await eth.client.getTransactionCount({ address: hot }) === 0) await eth.mine(1); })());
    expect(await eth.client.getTransactionCount({ address: hot })).toBe(1);

    // 3. a clean run finishes the settlement
    proxy.mode = 'pass';
    const third = spawnService({ PORT: String(port), ...env(dbEnv, proxy.url, mnemonic) });
    cleanups.push(async () => { third.child.kill('SIGKILL'); });
    await waitListening(third);
    let done: Json | undefined;
    for (let i = 0; i < 300 && !done; i++) {
      await eth.mine(1);
      const res = await fetch(`http://127.0.0.1:${port}/admin/settlements?status=completed`, { headers: ADMIN });
      done = (await res.json() as { settlements: Json[] }).settlements.find((x) => x.id === s.id);
    }
    expect(done).toBeDefined();
    third.child.kill('SIGTERM');
    expect((await third.exited).code).toBe(0);

    // the service's share is finished by the next start (here in process, its worker driven pass by pass)
    const after = await open();
    const t = await startChainApp(after, nodes, { WALLET_MNEMONIC: mnemonic, CONFIRMATIONS_ETHEREUM: '2' });
    try {
      await driveUntil(t, async () => (await queryRows<{ n: number }>(after.orm, sql`select count(*)::int as n from outgoing_transfers where status <> 'final'`))[0].n === 0);
      // the top-up's one signed transaction is the one broadcast in every run
      const [topUp] = await after.orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.purpose, 'gas_topup'));
      const attempts = await after.orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, topUp.id));
      expect(attempts.map((a) => a.raw)).toEqual([signedRaw]);
      expect((await after.orm.select().from(outgoingTransfers)).map((x) => x.purpose).sort()).toEqual(['gas_topup', 'service_fee', 'settlement']);
    } finally {
      await t.close();
      await after.close();
    }

    expect(await balanceOf(nodes, 'USDT_ERC20', merchant)).toBe(parseUnits(done!.net, 6));
    expect(await balanceOf(nodes, 'USDT_ERC20', deposit)).toBe(0n);
    expect(await eth.client.getTransactionCount({ address: hot })).toBe(1);
    expect(await eth.client.getTransactionCount({ address: deposit })).toBe(2);
  }

  it('PGlite: restarted twice, the settlement completes, nothing is sent twice', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-send-crash-'));
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    await scenario({ DATA_DIR: dir }, () => openPglite(path.join(dir, 'pglite')));
  }, 240_000);

  it.skipIf(!pgServerUrl())('PostgreSQL: the same', async () => {
    const created = await createPgDatabase();
    cleanups.push(created.drop);
    await scenario({ DATABASE_URL: created.url, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gw-send-crash-')) }, () => openPostgres(created.url));
  }, 240_000);
});
