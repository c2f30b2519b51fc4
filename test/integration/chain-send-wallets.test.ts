// The hot wallets (GET /admin/wallets: every chain and mode from the start, balances read from the
// node at most 60 s old, absent in test mode, without a node, or while it is down), the market's
// network fee quotes from the nodes, a node with legacy gas prices only (signed for its chain id),
// and keys never in logs, answers, events or the audit log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { bytesToHex, type Hex } from 'viem';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { sql } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { anvilOrSkip, startAnvil, type AnvilNode } from '../harness/anvil.ts';
import { startTestApp } from '../harness/app.ts';
import type { Json } from '../harness/payments.ts';
import {
  ADMIN, createLivePayment, deployTokens, driveUntil, fundHotWallet, merchantWithAddresses, owed, reportDeposit, settlementsOf,
  startChainApp, type ChainApp, type EvmNodes,
} from '../harness/chain-send.ts';
import { CHAINS } from '../../src/config.ts';
import { queryRows } from '../../src/platform/db/index.ts';
import { deriveDepositKey, hotWalletAddress, hotWalletKey, seedFromMnemonic, xrpServiceAddress } from '../../src/chains/addresses/index.ts';
import { outgoingAttempts } from '../../src/chains/transfers/index.ts';
import { sweepGas } from '../../src/chains/evm/send/index.ts';
import { payments } from '../../src/payments/index.ts';
import { eq } from 'drizzle-orm';

describe.runIf(anvilOrSkip())('hot wallets, fee quotes, legacy fees, keys', () => {
  let nodes: EvmNodes;
  let legacy: AnvilNode;
  beforeAll(async () => {
    const [eth, bsc, berlin] = await Promise.all([startAnvil({ chainId: 1 }), startAnvil({ chainId: 56 }), startAnvil({ chainId: 56, hardfork: 'berlin' })]);
    nodes = await deployTokens(eth, bsc);
    legacy = berlin;
  });
  afterAll(async () => { await Promise.all([nodes?.eth.close(), nodes?.bsc.close(), legacy?.close()]); });

  describeEachDb('wallets', (h) => {
    const mnemonic = generateMnemonic(wordlist);
    let t: ChainApp;
    beforeAll(async () => { t = await startChainApp(h.db(), nodes, { WALLET_MNEMONIC: mnemonic }); });
    afterAll(async () => { await t.close(); });
    const wallets = async (app = t): Promise<Json[]> => {
      const res = await app.app.inject({ method: 'GET', url: '/admin/wallets', headers: ADMIN });
      expect(res.statusCode).toBe(200);
      return res.json().wallets;
    };

    it('lists a hot wallet per chain and mode, derived from WALLET_MNEMONIC, balances only for live wallets of chains with a node', async () => {
      const seed = seedFromMnemonic(mnemonic);
      const list = await wallets();
      expect(list.map((w) => [w.chain, w.livemode])).toEqual(CHAINS.flatMap((c) => [[c, true], [c, false]]));
      for (const w of list) {
        expect(w.address).toBe(hotWalletAddress(seed, w.chain, w.livemode).address);
        expect(Object.keys(w).sort()).toEqual(w.livemode && (w.chain === 'ethereum' || w.chain === 'bsc')
          ? ['address', 'balances', 'chain', 'consolidating', 'livemode', 'needs_funding'] : ['address', 'chain', 'consolidating', 'livemode', 'needs_funding']);
        expect(w.needs_funding).toBe(false);
        expect(w.consolidating).toBe(false);
      }
      expect(list.find((w) => w.chain === 'xrp' && w.livemode)!.address).toBe(xrpServiceAddress(seed, true).address);
      // the mainnet USDC contracts have no code on these nodes: left out
      expect(list.find((w) => w.chain === 'ethereum' && w.livemode)!.balances).toEqual([{ token: 'ETH', amount: '0' }, { token: 'USDT_ERC20', amount: '0' }]);
      expect(list.find((w) => w.chain === 'bsc' && w.livemode)!.balances).toEqual([{ token: 'BNB', amount: '0' }, { token: 'USDT_BEP20', amount: '0' }]);
    });

    it('balances are read from the node, at most 60 s old; absent while the node is down', async () => {
      const eth = (await wallets()).find((w) => w.chain === 'ethereum' && w.livemode)!;
      await fundHotWallet(nodes, 'ethereum', eth.address, 1_500_000_000_000_000_000n, 2_500_000n);
      t.clock.advance(59_000);
      expect((await wallets()).find((w) => w.chain === 'ethereum' && w.livemode)!.balances).toEqual(eth.balances);
      t.clock.advance(1_000);
      expect((await wallets()).find((w) => w.chain === 'ethereum' && w.livemode)!.balances).toEqual([{ token: 'ETH', amount: '1.5' }, { token: 'USDT_ERC20', amount: '2.5' }]);
      await nodes.bsc.stop();
      try {
        t.clock.advance(60_000);
        const down = await wallets();
        expect(down.find((w) => w.chain === 'bsc' && w.livemode)!.balances).toBeUndefined();
        expect(down.find((w) => w.chain === 'ethereum' && w.livemode)!.balances).toHaveLength(2);
      } finally {
        await nodes.bsc.start();
      }
      expect((await wallets()).find((w) => w.chain === 'bsc' && w.livemode)!.balances).toHaveLength(2);
    });

    it('needs the admin token; without nodes every wallet is listed without balances', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/admin/wallets', headers: { authorization: 'Bearer nope' } });
      expect([res.statusCode, res.json()]).toEqual([401, { error: 'invalid admin token' }]);
      const bare = await startTestApp(h.db(), { env: { WALLET_MNEMONIC: mnemonic } });
      try {
        const list = (await bare.app.inject({ method: 'GET', url: '/admin/wallets', headers: ADMIN })).json().wallets as Json[];
        expect(list).toHaveLength(CHAINS.length * 2);
        expect(list.every((w) => w.balances === undefined)).toBe(true);
        expect(await bare.services.sending.feeQuoter.quoteSweepFee('ETH')).toBeNull();
      } finally {
        await bare.close();
      }
      const off = await startTestApp(h.db(), { env: { ADMIN_TOKEN: '' } });
      try {
        const hidden = await off.app.inject({ method: 'GET', url: '/admin/wallets', headers: ADMIN });
        expect(hidden.statusCode).toBe(404);
      } finally {
        await off.close();
      }
    });

    it('quotes the network fee of moving a deposit out at the node\'s gas price: two transfers, and a top-up for a token', async () => {
      const quoter = t.services.sending.feeQuoter;
      const block = await nodes.eth.client.getBlock();
      const tip = BigInt(await nodes.eth.client.request({ method: 'eth_maxPriorityFeePerGas' }));
      const price = block.baseFeePerGas! + tip;
      expect(await quoter.quoteSweepFee('ETH')).toBe(42_000n * price);
      expect(await quoter.quoteSweepFee('USDT_ERC20')).toBe(151_000n * price);
      expect(sweepGas('USDC_BEP20')).toBe(151_000n);
      expect(await quoter.quoteSweepFee('BTC')).toBeNull();
      await nodes.bsc.stop();
      try {
        expect(await quoter.quoteSweepFee('BNB')).toBeNull();
      } finally {
        await nodes.bsc.start();
      }
    });
  });

  describeEachDb('legacy gas prices, and keys never shown', (h) => {
    let t: ChainApp;
    const lines: string[] = [];
    const mnemonic = generateMnemonic(wordlist);
    beforeAll(async () => {
      const log = pino({ level: 'debug' }, { write: (line: string) => { lines.push(line); } });
      // no USDT_BEP20 on this node (its contract address has no code here): BNB only
      t = await startChainApp(h.db(), { ...nodes, bsc: legacy }, { WALLET_MNEMONIC: mnemonic, LOG_LEVEL: 'debug' }, { log });
    });
    afterAll(async () => { await t.close(); });

    it('a node without a base fee gets legacy transactions signed for its chain id; no key appears anywhere', async () => {
      const m = await merchantWithAddresses(t, ['BNB']);
      const p = await createLivePayment(t, m, 'BNB');
      const hash = await legacy.wallet.sendTransaction({
        account: legacy.funder, to: p.deposit_address, value: owed(p), chain: null, type: 'legacy', gasPrice: await legacy.client.getGasPrice(),
      });
      const paid = await legacy.client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      await reportDeposit(t, p.deposit_address, 'BNB', { hash, block: paid.blockNumber }, owed(p));
      await driveUntil(t, async () => (await settlementsOf(t, p.id))[0].status === 'completed');
      const [s] = await settlementsOf(t, p.id);
      const tx = await legacy.client.getTransaction({ hash: s.tx_id as Hex });
      expect(tx).toMatchObject({ type: 'legacy', chainId: 56 });
      const attempts = await h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.txId, s.tx_id));
      expect(attempts.map((a) => a.fee.type)).toEqual(['legacy']);

      const seed = seedFromMnemonic(mnemonic);
      const [row] = await h.db().orm.select({ index: payments.addressIndex }).from(payments).where(eq(payments.id, p.id));
      const keys = [
        ...CHAINS.flatMap((c) => [true, false].map((live) => hotWalletKey(seed, c, live).privateKey)),
        deriveDepositKey(seed, 'bsc', true, row.index!).privateKey,
      ].map((k) => bytesToHex(k).slice(2));
      const answers = JSON.stringify([
        (await t.app.inject({ method: 'GET', url: '/admin/wallets', headers: ADMIN })).json(),
        (await t.app.inject({ method: 'GET', url: '/admin/settlements', headers: ADMIN })).json(),
      ]);
      const stored = JSON.stringify(await queryRows(h.db().orm, sql`select data::text as d from events union all select row_to_json(a)::text from audit_entries a
        union all select row_to_json(x)::text from outgoing_transfers x union all select row_to_json(y)::text from outgoing_transfer_attempts y`));
      expect(lines.length).toBeGreaterThan(0);
      for (const key of keys) {
        expect(answers.toLowerCase()).not.toContain(key);
        expect(stored.toLowerCase()).not.toContain(key);
        expect(lines.join('\n').toLowerCase()).not.toContain(key);
      }
    });
  });
});
