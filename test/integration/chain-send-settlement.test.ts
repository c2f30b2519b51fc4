// Direct settlement on real nodes (anvil, chain ids 1 and 56; the test USDT with 6 decimals on
// Ethereum and 18 on BNB Smart Chain): a live payment paid on chain and reported through
// DepositIntake is confirmed, settled by the settlement room, and sent by the transfer machinery:
// the merchant's payout address receives exactly `net`, the service's wallet its share, and the
// settlement is `completed` with the transfer's `tx_id` once it is final (spec 3, CONTRACT.md
// "Live chains").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Address, Hex } from 'viem';
import { describeEachDb } from '../harness/databases.ts';
import { anvilOrSkip } from '../harness/anvil.ts';
import { useEvmNodes } from '../harness/evm-nodes.ts';
import { keyHeader } from '../harness/accounts.ts';
import { getPayment, type Json } from '../harness/payments.ts';
import {
  balanceOf, createLivePayment, driveUntil, fundHotWallet, hotWallet, merchantWithAddresses, nodeOf, owed, pay,
  reportDeposit, settlementsOf, startChainApp, type ChainApp,
} from '../harness/chain-send.ts';
import { expectLedgerHolds } from '../harness/settlement.ts';
import { parseUnits } from '../../src/money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../../src/tokens/index.ts';
import { events } from '../../src/events/index.ts';
import { outgoingTransfers } from '../../src/chains/transfers/index.ts';

describe.runIf(anvilOrSkip())('direct settlement on chain', () => {
  const nodes = useEvmNodes();

  describeEachDb('paid, confirmed, settled', (h) => {
    let t: ChainApp;
    const hot: Record<string, string> = {};
    beforeAll(async () => {
      t = await startChainApp(h.db(), nodes);
      for (const chain of ['ethereum', 'bsc'] as const) {
        hot[chain] = (await hotWallet(t, chain)).address;
        // gas for the top-ups of token deposit addresses
        await fundHotWallet(nodes, chain, hot[chain], 10n ** 18n);
      }
    });
    afterAll(async () => { await t.close(); });

    const units = (token: TokenSymbol, v: string) => parseUnits(v, TOKEN_DEFS[token].decimals)!;
    const settled = async (paymentId: string): Promise<Json> => {
      await driveUntil(t, async () => (await settlementsOf(t, paymentId))[0]?.status === 'completed');
      return (await settlementsOf(t, paymentId))[0];
    };

    it.each(['ETH', 'USDT_ERC20', 'BNB', 'USDT_BEP20'] as const)('%s: the payout address receives exactly net, the settlement completes with its tx_id', async (token) => {
      const m = await merchantWithAddresses(t, [token]);
      const p = await createLivePayment(t, m, token);
      expect(p).toMatchObject({ livemode: true, token, chain: TOKEN_DEFS[token].chain });
      const amount = owed(p);
      const paid = await pay(nodes, token, p.deposit_address, amount);
      const hotBefore = await balanceOf(nodes, token, hot[TOKEN_DEFS[token].chain]);
      await reportDeposit(t, p.deposit_address, token, paid, amount);
      expect((await getPayment(t.app, m.acct.liveKey, p.id)).status).toBe('confirmed');
      const [pending] = await settlementsOf(t, p.id);
      expect(pending).toMatchObject({ mode: 'direct', status: 'pending', destination: m.addresses[token], token });
      expect(pending.tx_id).toBeUndefined();

      const s = await settled(p.id);
      const net = units(token, s.net);
      expect(net).toBeGreaterThan(0n);
      // exactly net, to the base unit
      expect(await balanceOf(nodes, token, m.addresses[token]!)).toBe(net);
      // tx_id is the merchant's transfer, mined, and final at CONFIRMATIONS_<CHAIN> (3 here)
      const node = nodeOf(nodes, token);
      const receipt = await node.client.getTransactionReceipt({ hash: s.tx_id as Hex });
      expect(receipt.status).toBe('success');
      // signed for the chain id the node reports, with EIP-1559 fees (its blocks carry a base fee)
      expect(await node.client.getTransaction({ hash: s.tx_id as Hex })).toMatchObject({ chainId: node.chainId, type: 'eip1559' });
      expect(await node.client.getBlockNumber() - receipt.blockNumber + 1n).toBeGreaterThanOrEqual(3n);
      // completed once the transfer was final: after the settlement was made, not in the future
      expect(Date.parse(s.completed_at)).toBeGreaterThanOrEqual(Date.parse(pending.created_at));
      expect(Date.parse(s.completed_at)).toBeLessThanOrEqual(Date.now());
      // the service's share reached its wallet: all of it for a token (the hot wallet paid the gas), less the fees for a native coin
      const share = units(token, s.service_fee) + units(token, s.network_fee);
      const hotGain = await balanceOf(nodes, token, hot[TOKEN_DEFS[token].chain]) - hotBefore;
      if (TOKEN_DEFS[token].native) {
        expect(hotGain).toBeGreaterThan(0n);
        expect(hotGain).toBeLessThan(share);
      } else {
        // the top-up left the hot wallet's native coin, not its tokens
        expect(hotGain).toBe(share);
        expect(await balanceOf(nodes, token, p.deposit_address)).toBe(0n);
      }
      // nothing was sent twice: the deposit address made exactly its two transfers
      expect(await node.client.getTransactionCount({ address: p.deposit_address as Address })).toBe(2);
      const hooks = await h.db().orm.select().from(events).where(eq(events.paymentId, p.id));
      const completed = hooks.filter((e) => e.type === 'settlement.completed');
      expect(completed).toHaveLength(1);
      expect(completed[0].data).toMatchObject({ id: s.id, status: 'completed', tx_id: s.tx_id });
      await expectLedgerHolds(h.db());
    });

    it('a payment paid in two parts is settled once: one transfer of net for both deposits', async () => {
      const token = 'USDT_BEP20';
      const m = await merchantWithAddresses(t, [token]);
      const p = await createLivePayment(t, m, token, '40');
      const amount = owed(p);
      const first = amount / 3n;
      const tx1 = await pay(nodes, token, p.deposit_address, first);
      await reportDeposit(t, p.deposit_address, token, tx1, first);
      expect((await getPayment(t.app, m.acct.liveKey, p.id)).status).toBe('partially_paid');
      expect(await settlementsOf(t, p.id)).toEqual([]);
      const tx2 = await pay(nodes, token, p.deposit_address, amount - first);
      await reportDeposit(t, p.deposit_address, token, tx2, amount - first);
      const s = await settled(p.id);
      expect([...s.deposit_txs].sort()).toEqual([tx1.hash, tx2.hash].sort());
      expect(units(token, s.amount)).toBe(amount);
      expect(await balanceOf(nodes, token, m.addresses[token]!)).toBe(units(token, s.net));
      // the service's share follows the merchant's transfer from the same address, and is final a block later
      const transfers = () => h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, s.id));
      await driveUntil(t, async () => (await transfers()).every((x) => x.status === 'final'));
      expect((await transfers()).map((x) => [x.purpose, x.amount === x.sentAmount]).sort()).toEqual([['service_fee', true], ['settlement', true]]);
      const get = await t.app.inject({ method: 'GET', url: `/v1/payments/${p.id}`, headers: keyHeader(m.acct.liveKey) });
      expect(get.json().status).toBe('confirmed');
    });
  });
});
