// Live payments paid on real nodes (anvil, chain ids 1 and 56; the test USDT with 6 decimals on
// Ethereum and 18 on BNB Smart Chain) and found by the chain watcher, nothing reported by hand:
// the transfer is seen in its block (`detecting`, 1 confirmation), counted block by block
// (`payment.confirmations`), `confirmed` at CONFIRMATIONS_<CHAIN> (3 here), settled, and the
// merchant's payout address receives exactly `net` on chain (issue 13, CONTRACT.md "Live chains").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { anvilOrSkip } from '../harness/anvil.ts';
import { useEvmNodes } from '../harness/evm-nodes.ts';
import {
  balanceOf, createLivePayment, driveUntil, fundHotWallet, hotWallet, merchantWithAddresses, nodeOf, owed, pay,
  settlementsOf, startChainApp, ADMIN, type ChainApp,
} from '../harness/chain-send.ts';
import { eventTypes, eventsOf, paymentNow, watchOnce } from '../harness/chain-watch.ts';
import { expectLedgerHolds } from '../harness/settlement.ts';
import { parseUnits } from '../../src/money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../../src/tokens/index.ts';

describe.runIf(anvilOrSkip())('the chain watcher on anvil', () => {
  const nodes = useEvmNodes();

  describeEachDb('live payments paid on chain', (h) => {
    let t: ChainApp;
    beforeAll(async () => {
      t = await startChainApp(h.db(), nodes);
      for (const chain of ['ethereum', 'bsc'] as const) await fundHotWallet(nodes, chain, (await hotWallet(t, chain)).address, 10n ** 18n);
      // the first pass sets each chain's cursor a few blocks below its tip
      await watchOnce(t);
    });
    afterAll(async () => { await t.close(); });

    it.each(['ETH', 'USDT_ERC20', 'BNB', 'USDT_BEP20'] as const)('%s: detecting, confirmations counted, confirmed, settled; the payout address receives exactly net', async (token: TokenSymbol) => {
      const m = await merchantWithAddresses(t, [token]);
      const p = await createLivePayment(t, m, token);
      const amount = owed(p);
      const node = nodeOf(nodes, token);
      const paid = await pay(nodes, token, p.deposit_address, amount);

      await watchOnce(t);
      let now = await paymentNow(t, m.acct.liveKey, p.id);
      expect(now).toMatchObject({ status: 'detecting', confirmations: 1, confirmations_required: 3 });
      expect(now.deposits).toEqual([expect.objectContaining({ tx_id: paid.hash, token, confirmations: 1, status: 'pending', counted: true })]);
      expect(parseUnits(now.deposits[0].amount, TOKEN_DEFS[token].decimals)).toBe(amount);

      await node.mine(1);
      await watchOnce(t);
      now = await paymentNow(t, m.acct.liveKey, p.id);
      expect(now).toMatchObject({ status: 'detecting', confirmations: 2 });
      // a pass with no new block counts nothing again
      await watchOnce(t);
      expect((await eventsOf(t, p.id, 'payment.confirmations')).map((e) => e.confirmations)).toEqual([2]);

      await node.mine(1);
      await watchOnce(t);
      now = await paymentNow(t, m.acct.liveKey, p.id);
      expect(now.status).toBe('confirmed');
      expect(now.deposits[0]).toMatchObject({ confirmations: 3, status: 'final' });
      const types = await eventTypes(t, p.id);
      expect(types.filter((x) => x.startsWith('payment.') && x !== 'payment.created' && x !== 'payment.coin_chosen'))
        .toEqual(['payment.detecting', 'payment.confirmations', 'payment.confirmed', 'payment.confirmations']);
      // the last count is the one that made it final (the confirmed payment no longer shows a count)
      expect((await eventsOf(t, p.id, 'payment.confirmations')).map((e) => [e.status, e.confirmations])).toEqual([['detecting', 2], ['confirmed', undefined]]);

      await driveUntil(t, async () => (await settlementsOf(t, p.id))[0]?.status === 'completed');
      const [s] = await settlementsOf(t, p.id);
      const net = parseUnits(s.net, TOKEN_DEFS[token].decimals)!;
      expect(net).toBeGreaterThan(0n);
      expect(await balanceOf(nodes, token, m.addresses[token]!)).toBe(net);
      // the blocks of the settlement (a gas top-up to the deposit address for a token) bring no deposit
      await watchOnce(t);
      expect((await paymentNow(t, m.acct.liveKey, p.id)).deposits).toHaveLength(1);
      await expectLedgerHolds(h.db());
    });

    it('the service\'s own transfers (sweeps, settlements) are not taken for deposits, and the cursor follows the tip', async () => {
      await Promise.all([nodes.eth.mine(2), nodes.bsc.mine(2)]);
      await watchOnce(t);
      const res = await t.app.inject({ method: 'GET', url: '/admin/chains', headers: ADMIN });
      expect(res.statusCode).toBe(200);
      const chains = res.json().chains as Array<Record<string, unknown>>;
      expect(chains.map((c) => c.chain).sort()).toEqual(['bsc', 'ethereum']);
      for (const c of chains) {
        const node = c.chain === 'bsc' ? nodes.bsc : nodes.eth;
        const tip = await node.client.getBlock();
        expect(c).toMatchObject({ status: expect.stringMatching(/^(ok|stale)$/), height: Number(tip.number), hash: tip.hash, rpc_url_index: 0, last_error: null });
        expect(c.behind_seconds).toEqual(expect.any(Number));
      }
      const unmatched = await t.app.inject({ method: 'GET', url: '/admin/unmatched-deposits', headers: ADMIN });
      expect(unmatched.json()).toEqual({ deposits: [] });
    });
  });
});
