// Reorganisations on a real node (anvil_reorg, anvil_rollback), CONTRACT.md "Live chains": a deposit
// whose block leaves the best chain drops to 0 confirmations (the payment keeps its status), counts
// again when its transaction is mined again, and fails when it is not within the hour; a
// reorganisation deeper than the confirmations never reverses a confirmed payment: it is logged,
// counted in /metrics and written to the merchant's audit log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { encodeAbiParameters, keccak256, type Hex } from 'viem';
import { describeEachDb } from '../harness/databases.ts';
import { anvilOrSkip } from '../harness/anvil.ts';
import { useEvmNodes } from '../harness/evm-nodes.ts';
import { createLivePayment, merchantWithAddresses, owed, pay, startChainApp, type ChainApp, type Merchant } from '../harness/chain-send.ts';
import { eventsOf, paymentNow, watchOnce } from '../harness/chain-watch.ts';
import type { Json } from '../harness/payments.ts';
import { auditEntries } from '../../src/accounts/schema.ts';
import { DEEP_REORG_ACTION, ORPHAN_TIMEOUT_MS } from '../../src/chains/watch/index.ts';

describe.runIf(anvilOrSkip())('reorganisations seen by the chain watcher', () => {
  const nodes = useEvmNodes();

  describeEachDb('deposits of orphaned blocks', (h) => {
    let t: ChainApp;
    let m: Merchant;
    beforeAll(async () => {
      t = await startChainApp(h.db(), nodes);
      m = await merchantWithAddresses(t, ['ETH']);
      await watchOnce(t);
    });
    afterAll(async () => { await t.close(); });

    const eth = () => nodes.eth;
    const rawOf = (hash: Hex) => eth().client.request({ method: 'eth_getRawTransactionByHash', params: [hash] } as never) as Promise<Hex>;
    const reorg = (depth: number) => eth().test.request({ method: 'anvil_reorg', params: [depth, []] } as never);
    const paidPayment = async (): Promise<{ p: Json; hash: Hex; raw: Hex }> => {
      const p = await createLivePayment(t, m, 'ETH');
      const { hash } = await pay(nodes, 'ETH', p.deposit_address, owed(p));
      await watchOnce(t);
      expect(await paymentNow(t, m.acct.liveKey, p.id)).toMatchObject({ status: 'detecting', confirmations: 1 });
      return { p, hash, raw: await rawOf(hash) };
    };
    const metric = async (name: string): Promise<number> => {
      const text = (await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer test-admin-token' } })).body;
      const line = text.split('\n').find((l) => l.startsWith(`${name}{chain="ethereum"}`));
      return line ? Number(line.split(' ').pop()) : 0;
    };

    it('anvil_reorg: the deposit drops to 0 confirmations, keeps the payment detecting, and counts again once mined again', async () => {
      const { p, hash, raw } = await paidPayment();
      const reorgsBefore = await metric('gateway_chain_reorgs');
      await reorg(1);
      await watchOnce(t);
      let now = await paymentNow(t, m.acct.liveKey, p.id);
      expect(now).toMatchObject({ status: 'detecting', confirmations: 0 });
      expect(now.deposits).toEqual([expect.objectContaining({ tx_id: hash, confirmations: 0, status: 'pending', counted: true })]);
      expect((await eventsOf(t, p.id, 'payment.confirmations')).at(-1)).toMatchObject({ status: 'detecting', confirmations: 0 });
      expect(await metric('gateway_chain_reorgs')).toBe(reorgsBefore + 1);

      // the same signed transaction is mined again (automine): it counts again from its new block
      await eth().client.request({ method: 'eth_sendRawTransaction', params: [raw] });
      // anvil answers the send before its automined block is in place: wait for it, as pay() does
      await eth().client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      await watchOnce(t);
      now = await paymentNow(t, m.acct.liveKey, p.id);
      expect(now).toMatchObject({ status: 'detecting', confirmations: 1 });
      await eth().mine(2);
      await watchOnce(t);
      now = await paymentNow(t, m.acct.liveKey, p.id);
      expect(now.status).toBe('confirmed');
      expect(now.deposits).toEqual([expect.objectContaining({ tx_id: hash, confirmations: 3, status: 'final' })]);
    });

    it('anvil_rollback below the cursor: the deposit waits at 0 confirmations, and fails when not mined again within the hour', async () => {
      const { p, hash } = await paidPayment();
      // seen half an hour before its block leaves: the hour runs from leaving the block, not from being seen
      t.clock.advance(ORPHAN_TIMEOUT_MS / 2);
      await eth().test.request({ method: 'anvil_rollback', params: [1] } as never);
      await eth().mine(1);
      await watchOnce(t);
      expect(await paymentNow(t, m.acct.liveKey, p.id)).toMatchObject({ status: 'detecting', confirmations: 0 });
      // not yet an hour: it still waits
      t.clock.advance(ORPHAN_TIMEOUT_MS - 60_000);
      await watchOnce(t);
      expect((await paymentNow(t, m.acct.liveKey, p.id)).status).toBe('detecting');
      t.clock.advance(2 * 60_000);
      await watchOnce(t);
      const now = await paymentNow(t, m.acct.liveKey, p.id);
      expect(now.status).toBe('failed');
      expect(now.deposits).toEqual([expect.objectContaining({ tx_id: hash, status: 'failed', counted: false })]);
      expect(await eventsOf(t, p.id, 'payment.failed')).toHaveLength(1);
    });

    it('a token deposit mined again after a reorganisation but reverted there (the sender\'s balance spent first in the new branch): failed, never counted again', async () => {
      const mu = await merchantWithAddresses(t, ['USDT_ERC20']);
      const p = await createLivePayment(t, mu, 'USDT_ERC20');
      const { hash } = await pay(nodes, 'USDT_ERC20', p.deposit_address, owed(p));
      const raw = await rawOf(hash);
      await watchOnce(t);
      expect(await paymentNow(t, mu.acct.liveKey, p.id)).toMatchObject({ status: 'detecting', confirmations: 1 });
      await reorg(1);
      // the new branch: the sender's tokens are gone before the same signed transfer is mined (balanceOf is slot 3)
      const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [eth().funder.address, 3n]));
      await eth().test.request({ method: 'anvil_setStorageAt', params: [nodes.usdtErc20, slot, `0x${'0'.repeat(64)}`] } as never);
      await eth().client.request({ method: 'eth_sendRawTransaction', params: [raw] });
      expect((await eth().client.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status).toBe('reverted');
      await eth().mine(2);
      await watchOnce(t);
      const now = await paymentNow(t, mu.acct.liveKey, p.id);
      expect(now.deposits).toEqual([expect.objectContaining({ tx_id: hash, status: 'failed', counted: false })]);
      expect(now.status).not.toBe('confirmed');
    });

    it('a deposit in the common ancestor\'s own block stays counted: only the blocks above it were taken', async () => {
      const a = await paidPayment();
      const b = await paidPayment();
      await reorg(1);
      await watchOnce(t);
      expect(await paymentNow(t, m.acct.liveKey, b.p.id)).toMatchObject({ status: 'detecting', confirmations: 0 });
      expect(await paymentNow(t, m.acct.liveKey, a.p.id)).toMatchObject({ status: 'detecting', confirmations: 2 });
      expect((await eventsOf(t, a.p.id, 'payment.confirmations')).map((e) => e.confirmations)).toEqual([2]);
    });

    it('a reorganisation deeper than the confirmations never reverses a confirmed payment: logged, counted, audited', async () => {
      const { p, hash } = await paidPayment();
      await eth().mine(2);
      await watchOnce(t);
      expect((await paymentNow(t, m.acct.liveKey, p.id)).status).toBe('confirmed');
      const deepBefore = await metric('gateway_chain_deep_reorgs');
      await reorg(4);
      await watchOnce(t);
      const now = await paymentNow(t, m.acct.liveKey, p.id);
      expect(now.status).toBe('confirmed');
      expect(now.deposits).toEqual([expect.objectContaining({ tx_id: hash, status: 'final', counted: true })]);
      expect(await metric('gateway_chain_deep_reorgs')).toBe(deepBefore + 1);
      const audit = await h.db().orm.select().from(auditEntries)
        .where(and(eq(auditEntries.merchantId, m.acct.merchant.id), eq(auditEntries.action, DEEP_REORG_ACTION)));
      expect(audit).toEqual([expect.objectContaining({ paymentId: p.id, subject: hash, actor: expect.objectContaining({ kind: 'system' }) })]);
      // the watcher follows the new best chain
      const tip = await eth().client.getBlock();
      const chains = (await t.app.inject({ method: 'GET', url: '/admin/chains', headers: { authorization: 'Bearer test-admin-token' } })).json().chains;
      expect(chains.find((c: Json) => c.chain === 'ethereum')).toMatchObject({ height: Number(tip.number), hash: tip.hash });
    });
  });
});
