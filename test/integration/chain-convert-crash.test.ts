// kill -9 of the real service while a live conversion pays the merchant from the service's hot
// wallet, on anvil: once with the payout signed and stored but its broadcast stalled, once with it
// broadcast and mined but the answer never back. After the restarts the merchant received exactly
// `amount_out`, the hot wallet sent one transaction (the same signed bytes every time), the deposit
// was swept once, and the settlement completed with that payout's tx_id.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { parseTransaction, type Address, type Hex } from 'viem';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { anvilOrSkip, deployTestToken, startAnvil, type AnvilNode } from '../harness/anvil.ts';
import { broadcastProxy } from '../harness/broadcast-proxy.ts';
import { freePort, killWhen, spawnService, waitListening } from '../harness/process.ts';
import { createPgDatabase, pgServerUrl } from '../harness/databases.ts';
import { TEST_SERVICE_ENV } from '../harness/app.ts';
import type { Json } from '../harness/payments.ts';
import {
  ADMIN, balanceOf, createLivePayment, fundHotWallet, hotWallet, merchantWithAddresses, owed, pay, reportDeposit, settlementsOf,
  startChainApp, type EvmNodes,
} from '../harness/chain-send.ts';
import { migrate, openPglite, openPostgres, type Database } from '../../src/platform/db/index.ts';
import { parseUnits } from '../../src/money/index.ts';
import { outgoingAttempts, outgoingTransfers } from '../../src/chains/transfers/index.ts';
import { NOTE_CONVERTING } from '../../src/settlement/settlement-writer.ts';

describe.runIf(anvilOrSkip())('kill -9 during a live conversion\'s payout', () => {
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

  const env = (db: Record<string, string>, rpc: string, mnemonic: string): Record<string, string> => ({
    ...db, ...TEST_SERVICE_ENV, WALLET_MNEMONIC: mnemonic,
    ETHEREUM_RPC_URL: rpc, BSC_RPC_URL: bsc.url, TOKEN_CONTRACTS: `USDT_ERC20=${nodes.usdtErc20},USDT_BEP20=${nodes.usdtBep20}`,
    CONFIRMATIONS_ETHEREUM: '2', CHAIN_POLL_MS: '100', SETTLEMENT_DELAY_S: '0',
  });

  /** A live ETH payment for a merchant with only a USDT_ERC20 address, paid and confirmed in-process: its sweep recorded, nothing sent. */
  async function prepare(db: Database, mnemonic: string): Promise<{ p: Json; s: Json; merchant: string; hot: Address }> {
    const t = await startChainApp(db, nodes, { WALLET_MNEMONIC: mnemonic, CONFIRMATIONS_ETHEREUM: '2' });
    try {
      const m = await merchantWithAddresses(t, ['USDT_ERC20']);
      const p = await createLivePayment(t, m, 'ETH');
      await reportDeposit(t, p.deposit_address, 'ETH', await pay(nodes, 'ETH', p.deposit_address, owed(p)), owed(p));
      const [s] = await settlementsOf(t, p.id);
      expect(s).toMatchObject({ status: 'pending', note: NOTE_CONVERTING, conversion: { via: 'swap', status: 'pending' } });
      const hot = (await hotWallet(t, 'ethereum')).address as Address;
      await fundHotWallet(nodes, 'ethereum', hot, 10n ** 17n, 1_000n * 10n ** 6n);
      return { p, s, merchant: m.addresses.USDT_ERC20!, hot };
    } finally {
      await t.close();
    }
  }

  async function scenario(dbEnv: Record<string, string>, open: () => Promise<Database>): Promise<void> {
    const mnemonic = generateMnemonic(wordlist);
    // only the payout (a call of the USDT contract) is stalled or left unanswered; the sweep passes
    const proxy = await broadcastProxy(eth.url, (raw) => parseTransaction(raw as Hex).to?.toLowerCase() === nodes.usdtErc20.toLowerCase());
    cleanups.push(proxy.close);
    const db = await open();
    await migrate(db);
    const { p, s, merchant, hot } = await prepare(db, mnemonic);
    await db.close();
    const deposit = p.deposit_address as Address;
    const hotSent = () => eth.client.getTransactionCount({ address: hot });

    // 1. the deposit is swept, the conversion priced and its payout signed and stored; its broadcast never reaches the node: killed
    proxy.mode = 'stall';
    const port = await freePort();
    const first = spawnService({ PORT: String(port), ...env(dbEnv, proxy.url, mnemonic) });
    cleanups.push(async () => { first.child.kill('SIGKILL'); });
    await waitListening(first);
    const mining = setInterval(() => { eth.mine(1).catch(() => {}); }, 150);
    cleanups.push(async () => clearInterval(mining));
    await killWhen(first, proxy.sawBroadcast());
    expect(await hotSent()).toBe(0);
    const signedRaw = proxy.broadcasts.at(-1)!;

    // 2. the same bytes go out again, the node mines them, the answer is lost: killed
    proxy.mode = 'no-answer';
    const second = spawnService({ PORT: String(port), ...env(dbEnv, proxy.url, mnemonic) });
    cleanups.push(async () => { second.child.kill('SIGKILL'); });
    await waitListening(second);
    expect(await proxy.sawBroadcast()).toBe(signedRaw);
    await killWhen(second, (async () => { while (await hotSent() === 0) await new Promise((r) => setTimeout(r, 50)); })());
    expect(await hotSent()).toBe(1);

    // 3. a clean run completes the settlement
    proxy.mode = 'pass';
    const third = spawnService({ PORT: String(port), ...env(dbEnv, proxy.url, mnemonic) });
    cleanups.push(async () => { third.child.kill('SIGKILL'); });
    await waitListening(third);
    let done: Json | undefined;
    for (let i = 0; i < 600 && !done; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const res = await fetch(`http://127.0.0.1:${port}/admin/settlements?status=completed`, { headers: ADMIN });
      done = (await res.json() as { settlements: Json[] }).settlements.find((x) => x.id === s.id);
    }
    clearInterval(mining);
    expect(done).toBeDefined();
    third.child.kill('SIGTERM');
    expect((await third.exited).code).toBe(0);

    const amountOut = parseUnits(done!.conversion.amount_out, 6)!;
    expect(done!.conversion.status).toBe('done');
    expect(await balanceOf(nodes, 'USDT_ERC20', merchant)).toBe(amountOut);
    expect(await hotSent()).toBe(1);
    expect(await eth.client.getTransactionCount({ address: deposit })).toBe(1);
    const after = await open();
    try {
      const rows = await after.orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, s.id));
      expect(rows.map((r) => r.purpose).sort()).toEqual(['settlement', 'sweep']);
      const payout = rows.find((r) => r.purpose === 'settlement')!;
      expect(payout).toMatchObject({ status: 'final', txId: done!.tx_id, sentAmount: amountOut });
      const attempts = await after.orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, payout.id));
      expect(attempts.map((a) => a.raw)).toEqual([signedRaw]);
    } finally {
      await after.close();
    }
  }

  it('PGlite: restarted twice, the merchant receives amount_out once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-convert-crash-'));
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    await scenario({ DATA_DIR: dir }, () => openPglite(path.join(dir, 'pglite')));
  }, 240_000);

  it.skipIf(!pgServerUrl())('PostgreSQL: the same', async () => {
    const created = await createPgDatabase();
    cleanups.push(created.drop);
    await scenario({ DATABASE_URL: created.url, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gw-convert-crash-')) }, () => openPostgres(created.url));
  }, 240_000);
});
