// A wrong-asset deposit in a coin with no current price (issue 13): it cannot be valued, yet the
// chain's cursor must move on. It is kept (deposits_awaiting_price), the blocks after it are read
// as usual, and once the coin is priced again the next pass records it as the payment's deposit
// (seen when it arrived, valued at the price of then, `payment.wrong_asset`), also when another
// process has taken the chain over meanwhile. Its transaction moved by a reorganisation to a block
// the watcher has not reached yet is recorded only once the watcher reaches it: that block may still
// be replaced by one without it, and then nothing arrived. One that no payment takes any more (seen
// past the late window, its payment's deadline not yet run) is unmatched at once, never kept, as any
// transfer to a closed payment's address: listed for the operator and in that payment's trail.
import { afterAll, beforeAll, expect, it, describe } from 'vitest';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { anvilOrSkip } from '../harness/anvil.ts';
import { useEvmNodes } from '../harness/evm-nodes.ts';
import { FakeExchanges } from '../harness/exchanges.ts';
import { ADMIN, createLivePayment, merchantWithAddresses, owed, pay, startChainApp, type ChainApp } from '../harness/chain-send.ts';
import { eventTypes, paymentNow, watchOnce } from '../harness/chain-watch.ts';
import type { Hex } from 'viem';
import { ChainWatching, chainCursors } from '../../src/chains/watch/index.ts';
import { chainReaders } from '../../src/chains/watching/index.ts';
import { depositsAwaitingPrice } from '../../src/chains/watch/schema.ts';
import { deposits } from '../../src/payments/index.ts';

const HOUR = 60 * 60 * 1000;

describe.runIf(anvilOrSkip())('a wrong-asset deposit while its coin has no price', () => {
  const nodes = useEvmNodes();

  describeEachDb('on anvil', (h) => {
    let t: ChainApp;
    let fx: FakeExchanges;
    beforeAll(async () => {
      fx = await FakeExchanges.start();
      t = await startChainApp(h.db(), nodes, { MARKET_FILE: '', ...fx.env() });
      await t.services.market.refresh();
      await watchOnce(t);
    });
    afterAll(async () => { await t.close(); await fx.close(); });

    const cursor = async () => (await t.platform.db.orm.select().from(chainCursors).where(eq(chainCursors.chain, 'ethereum')))[0];
    const cursorHeight = async () => (await cursor()).height;

    it('is kept while the cursor moves on, and recorded once USDT is priced again', async () => {
      const m = await merchantWithAddresses(t, ['ETH']);
      const p = await createLivePayment(t, m, 'ETH');
      const other = await createLivePayment(t, m, 'ETH');
      // USDT 10% off its peg: no current price
      fx.prices.USDT = '0.90';
      await t.services.market.refresh();
      const seenAt = t.clock.now();
      const usdt = await pay(nodes, 'USDT_ERC20', p.deposit_address, 7_000_000n);
      await watchOnce(t);
      const kept = await t.platform.db.orm.select().from(depositsAwaitingPrice).where(eq(depositsAwaitingPrice.paymentId, p.id));
      expect(kept).toEqual([expect.objectContaining({ txId: usdt.hash, token: 'USDT_ERC20', amount: 7_000_000n, block: Number(usdt.block) })]);
      expect((await paymentNow(t, m.acct.liveKey, p.id)).deposits).toEqual([]);

      // the cursor is past that block: a later payment in ETH is seen
      const eth = await pay(nodes, 'ETH', other.deposit_address, owed(other));
      await watchOnce(t);
      expect(await cursorHeight()).toBe(eth.block);
      expect((await paymentNow(t, m.acct.liveKey, other.id)).status).toBe('detecting');
      // still no price: still kept, nothing recorded
      await watchOnce(t);
      expect(await t.platform.db.orm.select().from(depositsAwaitingPrice).where(eq(depositsAwaitingPrice.paymentId, p.id))).toHaveLength(1);

      fx.reset();
      t.clock.advance(5_000);
      await t.services.market.refresh();
      await watchOnce(t);
      const now = await paymentNow(t, m.acct.liveKey, p.id);
      expect(now.deposits).toEqual([expect.objectContaining({ tx_id: usdt.hash, token: 'USDT_ERC20', amount: '7', usd_value: '7', confirmations: 2 })]);
      const [row] = await t.platform.db.orm.select().from(deposits).where(eq(deposits.paymentId, p.id));
      expect(row).toMatchObject({ block: Number(usdt.block), seenAt, late: false });
      expect(await eventTypes(t, p.id)).toContain('payment.wrong_asset');
      expect(await t.platform.db.orm.select().from(depositsAwaitingPrice).where(eq(depositsAwaitingPrice.paymentId, p.id))).toEqual([]);
      // a second pass records it once
      await watchOnce(t);
      expect((await paymentNow(t, m.acct.liveKey, p.id)).deposits).toHaveLength(1);
      // none left: the chain's cursor row no longer sends the passes to that table
      expect((await cursor()).awaitingPrice).toBe(false);
    });

    it('one no payment takes any more (seen over 24 hours past expires_at, its timer not run yet) is unmatched at once, not kept: listed for the operator and in the payment\'s trail', async () => {
      const m = await merchantWithAddresses(t, ['ETH']);
      const p = await createLivePayment(t, m, 'ETH');
      // more than 24 hours past expires_at, the expiry timer not run yet: the deadline passed before
      // the money arrived, so the payment expires first and the transfer is past its late window
      t.clock.advance(25 * HOUR + 16 * 60 * 1000);
      fx.prices.USDT = '0.90';
      await t.services.market.refresh();
      const seenAt = t.clock.now();
      const usdt = await pay(nodes, 'USDT_ERC20', p.deposit_address, 7_000_000n);
      await watchOnce(t);
      expect(await t.platform.db.orm.select().from(depositsAwaitingPrice).where(eq(depositsAwaitingPrice.paymentId, p.id))).toEqual([]);
      await t.platform.outbox.drainNow();
      expect(await paymentNow(t, m.acct.liveKey, p.id)).toMatchObject({ status: 'expired', deposits: [] });
      expect(await eventTypes(t, p.id)).toEqual(['payment.created', 'payment.expired']);
      // its timer, run now, changes nothing
      await t.services.payments.timers.runDue(t.clock.now());
      fx.reset();
      t.clock.advance(5_000);
      await t.services.market.refresh();
      await watchOnce(t);
      expect(await paymentNow(t, m.acct.liveKey, p.id)).toMatchObject({ status: 'expired', deposits: [] });
      const listed = (await t.app.inject({ method: 'GET', url: '/admin/unmatched-deposits?chain=ethereum', headers: ADMIN })).json().deposits;
      const mine = listed.filter((d: { tx_id: string }) => d.tx_id === usdt.hash);
      // seen while its coin had no price: no usd_value
      expect(mine).toEqual([{
        id: expect.stringMatching(/^umd_/), merchant_id: m.acct.merchant.id, chain: 'ethereum', token: 'USDT_ERC20', address: p.deposit_address,
        tx_id: usdt.hash, amount: '7', block: Number(usdt.block), seen_at: seenAt.toISOString(),
      }]);
      const trail = await t.services.payments.trail(m.acct.merchant.id, p.id) as { unmatched_deposits: unknown };
      expect(trail.unmatched_deposits).toEqual(mine);
      // a later pass lists it once
      await watchOnce(t);
      expect((await t.app.inject({ method: 'GET', url: '/admin/unmatched-deposits?chain=ethereum', headers: ADMIN })).json().deposits
        .filter((d: { tx_id: string }) => d.tx_id === usdt.hash)).toHaveLength(1);
    });

    it('a deposit kept by the process that watched the chain is recorded by the one that takes the chain over', async () => {
      // another process, started (and watching: PGlite is one process, always holding the lock)
      // while nothing waits for a price
      const other = await startChainApp(h.db(), nodes, { MARKET_FILE: '', ...fx.env() });
      try {
        await other.services.market.refresh();
        await watchOnce(other);
        const m = await merchantWithAddresses(t, ['ETH']);
        const p = await createLivePayment(t, m, 'ETH');
        fx.prices.USDT = '0.90';
        await t.services.market.refresh();
        await other.services.market.refresh();
        const usdt = await pay(nodes, 'USDT_ERC20', p.deposit_address, 5_000_000n);
        await watchOnce(t);
        expect(await t.platform.db.orm.select().from(depositsAwaitingPrice).where(eq(depositsAwaitingPrice.paymentId, p.id))).toHaveLength(1);
        expect((await cursor()).awaitingPrice).toBe(true);
        fx.reset();
        await other.services.market.refresh();
        // the first process stops watching (its lock goes): the other one takes the chain and records it
        await t.services.watching.stop();
        await watchOnce(other);
        expect((await paymentNow(t, m.acct.liveKey, p.id)).deposits).toEqual([expect.objectContaining({ tx_id: usdt.hash, token: 'USDT_ERC20', amount: '5' })]);
        expect(await t.platform.db.orm.select().from(depositsAwaitingPrice).where(eq(depositsAwaitingPrice.paymentId, p.id))).toEqual([]);
        await watchOnce(other);
        expect((await cursor()).awaitingPrice).toBe(false);
      } finally {
        await other.close();
      }
    });
  });

  describeEachDb('moved above the watcher\'s finished height by a reorganisation', (h) => {
    let t: ChainApp;
    let fx: FakeExchanges;
    // the app's own watcher is never run: this one, over the same parts, stops after each block
    let watching: ChainWatching;
    const eth = () => nodes.eth;
    beforeAll(async () => {
      fx = await FakeExchanges.start();
      t = await startChainApp(h.db(), nodes, { MARKET_FILE: '', ...fx.env() });
      await t.services.market.refresh();
      const readers = chainReaders(t.platform.config, t.services.nodes, t.services.sending.kits).filter((r) => r.chain === 'ethereum');
      watching = new ChainWatching(t.platform, t.services.nodes, readers, { intake: t.services.payments.intake, market: t.services.market }, { maxBlocksPerPass: 1 });
      await caughtUp();
    });
    afterAll(async () => { await watching?.stop(); await t?.close(); await fx?.close(); });

    const pass = async () => {
      await watching.runOnce();
      await t.platform.outbox.drainNow();
    };
    async function caughtUp(): Promise<void> {
      const tip = await eth().client.getBlockNumber();
      for (let i = 0; i < 20 && (watching.states()[0]?.height ?? -1n) < tip; i++) await pass();
      expect(watching.states()[0].height).toBe(tip);
    }
    const reorg = (depth: number) => eth().test.request({ method: 'anvil_reorg', params: [depth, []] } as never);
    const kept = (paymentId: string) => t.platform.db.orm.select().from(depositsAwaitingPrice).where(eq(depositsAwaitingPrice.paymentId, paymentId));

    it('is not recorded before the watcher reaches its new block; that block replaced without it, it is never recorded', async () => {
      const m = await merchantWithAddresses(t, ['ETH']);
      const p = await createLivePayment(t, m, 'ETH');
      fx.prices.USDT = '0.90';
      await t.services.market.refresh();
      const usdt = await pay(nodes, 'USDT_ERC20', p.deposit_address, 7_000_000n);
      const raw = await eth().client.request({ method: 'eth_getRawTransactionByHash', params: [usdt.hash] } as never) as Hex;
      await caughtUp();
      expect(await kept(p.id)).toHaveLength(1);

      // its block replaced; two blocks later it is mined again, three blocks above the watcher
      await reorg(1);
      await eth().mine(2);
      await eth().client.request({ method: 'eth_sendRawTransaction', params: [raw] });
      await eth().client.waitForTransactionReceipt({ hash: usdt.hash, pollingInterval: 20 });
      fx.reset();
      t.clock.advance(5_000);
      await t.services.market.refresh();
      await pass();
      expect(watching.states()[0].height).toBe(usdt.block);
      expect((await paymentNow(t, m.acct.liveKey, p.id)).deposits).toEqual([]);
      expect(await kept(p.id)).toHaveLength(1);

      // that block is replaced in turn, without it: the money never arrived
      await reorg(1);
      await eth().mine(3);
      await caughtUp();
      expect((await paymentNow(t, m.acct.liveKey, p.id)).deposits).toEqual([]);
      expect(await kept(p.id)).toHaveLength(1);
    });
  });
});
