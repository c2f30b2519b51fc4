// Deposit cases found on chain by the watcher (issue 13 "Every deposit case on chain"): another coin
// of the chain sent to a payment (`payment.wrong_asset`), a late deposit within 24 h of expires_at,
// a deposit after that with no payment to take it (unmatched: /admin/unmatched-deposits and the
// payment's trail), and money that becomes final after its payment closed is still settled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { anvilOrSkip, deployTestToken, testTokenAbi } from '../harness/anvil.ts';
import { erc20Abi, type Address } from 'viem';
import { useEvmNodes } from '../harness/evm-nodes.ts';
import {
  ADMIN, balanceOf, createLivePayment, driveUntil, fundHotWallet, hotWallet, merchantWithAddresses, owed, pay, settlementsOf,
  startChainApp, type ChainApp,
} from '../harness/chain-send.ts';
import { eventTypes, paymentNow, watchOnce } from '../harness/chain-watch.ts';
import { parseUnits } from '../../src/money/index.ts';
import { TOKEN_DEFS } from '../../src/tokens/index.ts';
import { and, eq } from 'drizzle-orm';
import { outgoingTransfers } from '../../src/chains/transfers/index.ts';

const HOUR = 60 * 60 * 1000;

describe.runIf(anvilOrSkip())('deposit cases on chain', () => {
  const nodes = useEvmNodes();

  describeEachDb('found by the watcher', (h) => {
    let t: ChainApp;
    beforeAll(async () => {
      t = await startChainApp(h.db(), nodes);
      await fundHotWallet(nodes, 'ethereum', (await hotWallet(t, 'ethereum')).address, 10n ** 18n);
      await watchOnce(t);
    });
    afterAll(async () => { await t.close(); });

    const expire = async () => {
      t.clock.advance(16 * 60 * 1000);
      await t.services.payments.timers.runDue(t.clock.now());
      await t.platform.outbox.drainNow();
    };
    const confirmOnChain = async () => {
      await nodes.eth.mine(2);
      await watchOnce(t);
    };

    it('USDT sent to a payment asking ETH: payment.wrong_asset, the deposit recorded in its own coin', async () => {
      const m = await merchantWithAddresses(t, ['ETH']);
      const p = await createLivePayment(t, m, 'ETH');
      const { hash } = await pay(nodes, 'USDT_ERC20', p.deposit_address, 7_000_000n);
      await watchOnce(t);
      const now = await paymentNow(t, m.acct.liveKey, p.id);
      expect(now.deposits).toEqual([expect.objectContaining({ tx_id: hash, token: 'USDT_ERC20', amount: '7' })]);
      expect(await eventTypes(t, p.id)).toContain('payment.wrong_asset');
    });

    it('a token transfer from a contract not in TOKEN_CONTRACTS is ignored', async () => {
      const m = await merchantWithAddresses(t, ['USDT_ERC20']);
      const p = await createLivePayment(t, m, 'USDT_ERC20');
      const eth = nodes.eth;
      const fake = await deployTestToken(eth, { name: 'Not Tether', symbol: 'USDT', decimals: 6 });
      const write = async (functionName: string, args: unknown[], abi: readonly unknown[]) => {
        const hash = await eth.wallet.writeContract({ address: fake, abi: abi as never, functionName: functionName as never, args: args as never, chain: null, account: eth.funder });
        await eth.client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      };
      await write('mint', [eth.funder.address, owed(p)], testTokenAbi());
      await write('transfer', [p.deposit_address as Address, owed(p)], erc20Abi);
      await watchOnce(t);
      expect(await paymentNow(t, m.acct.liveKey, p.id)).toMatchObject({ status: 'pending', deposits: [] });
      const listed = (await t.app.inject({ method: 'GET', url: '/admin/unmatched-deposits', headers: ADMIN })).json().deposits;
      expect(listed.filter((d: { address: string }) => d.address === p.deposit_address)).toEqual([]);
    });

    it('a late deposit within 24 hours of expires_at completes the payment', async () => {
      const m = await merchantWithAddresses(t, ['ETH']);
      const p = await createLivePayment(t, m, 'ETH');
      await expire();
      expect((await paymentNow(t, m.acct.liveKey, p.id)).status).toBe('expired');
      t.clock.advance(23 * HOUR);
      await pay(nodes, 'ETH', p.deposit_address, owed(p));
      await watchOnce(t);
      expect((await paymentNow(t, m.acct.liveKey, p.id)).status).toBe('detecting');
      await confirmOnChain();
      expect((await paymentNow(t, m.acct.liveKey, p.id)).status).toBe('confirmed');
      expect(await eventTypes(t, p.id)).toContain('payment.late_deposit');
    });

    it('a deposit more than 24 hours after expires_at is unmatched: listed for the operator and in the payment\'s trail', async () => {
      const m = await merchantWithAddresses(t, ['ETH']);
      const p = await createLivePayment(t, m, 'ETH');
      await expire();
      t.clock.advance(25 * HOUR);
      const amount = owed(p);
      const { hash, block } = await pay(nodes, 'ETH', p.deposit_address, amount);
      await watchOnce(t);
      // a second pass over the same blocks records it once
      await watchOnce(t);
      const now = await paymentNow(t, m.acct.liveKey, p.id);
      expect(now).toMatchObject({ status: 'expired', deposits: [] });
      const res = await t.app.inject({ method: 'GET', url: '/admin/unmatched-deposits?chain=ethereum', headers: ADMIN });
      expect(res.statusCode).toBe(200);
      const mine = res.json().deposits.filter((d: { tx_id: string }) => d.tx_id === hash);
      expect(mine).toEqual([{
        id: expect.stringMatching(/^umd_/), merchant_id: m.acct.merchant.id, chain: 'ethereum', token: 'ETH', address: p.deposit_address,
        tx_id: hash, amount: p.crypto_amount, usd_value: expect.stringMatching(/^\d+(\.\d{1,2})?$/), block: Number(block), seen_at: t.clock.now().toISOString(),
      }]);
      expect((await t.app.inject({ method: 'GET', url: '/admin/unmatched-deposits?chain=bsc', headers: ADMIN })).json().deposits).toEqual([]);
      // (the dashboard's access token has expired on this clock: the trail is read from the service behind the route)
      const trail = await t.services.payments.trail(m.acct.merchant.id, p.id) as { unmatched_deposits: unknown };
      expect(trail.unmatched_deposits).toEqual(mine);
    });

    it('BNB sent to a USDT_BEP20 address: the USDT transfers get their gas from the hot wallet, never from the customer\'s BNB, and each payout address receives exactly its net', async () => {
      await fundHotWallet(nodes, 'bsc', (await hotWallet(t, 'bsc')).address, 10n ** 18n);
      const m = await merchantWithAddresses(t, ['USDT_BEP20', 'BNB']);
      const p = await createLivePayment(t, m, 'USDT_BEP20');
      // the customer sends BNB (another coin of the chain) and the USDT asked for
      await pay(nodes, 'BNB', p.deposit_address, 10n ** 16n);
      await pay(nodes, 'USDT_BEP20', p.deposit_address, owed(p));
      await watchOnce(t);
      // the BNB is still confirming when the USDT settlement leaves (the first case), then it is final too
      await nodes.bsc.mine(2);
      await watchOnce(t);
      expect((await paymentNow(t, m.acct.liveKey, p.id)).status).toBe('confirmed');
      await driveUntil(t, async () => {
        await watchOnce(t);
        const all = await settlementsOf(t, p.id);
        return all.length === 2 && all.every((s) => s.status === 'completed');
      });
      const byToken = Object.fromEntries((await settlementsOf(t, p.id)).map((s) => [s.token, s]));
      expect(await balanceOf(nodes, 'USDT_BEP20', m.addresses.USDT_BEP20!)).toBe(parseUnits(byToken.USDT_BEP20.net, 18));
      expect(await balanceOf(nodes, 'BNB', m.addresses.BNB!)).toBe(parseUnits(byToken.BNB.net, 8)! * 10n ** 10n);
      // the USDT transfers' gas came from a top-up of the hot wallet
      const topUps = await t.platform.db.orm.select().from(outgoingTransfers)
        .where(and(eq(outgoingTransfers.purpose, 'gas_topup'), eq(outgoingTransfers.toAddress, p.deposit_address)));
      expect(topUps).toHaveLength(1);
    });

    it('money that becomes final after its payment closed is settled too: the payout address receives both nets', async () => {
      const m = await merchantWithAddresses(t, ['ETH']);
      const p = await createLivePayment(t, m, 'ETH');
      await pay(nodes, 'ETH', p.deposit_address, owed(p));
      await watchOnce(t);
      await confirmOnChain();
      expect((await paymentNow(t, m.acct.liveKey, p.id)).status).toBe('confirmed');
      await driveUntil(t, async () => (await settlementsOf(t, p.id))[0]?.status === 'completed');

      // more money after the payment was confirmed: recorded, then final with no status change
      await pay(nodes, 'ETH', p.deposit_address, owed(p) / 2n);
      await watchOnce(t);
      await confirmOnChain();
      const now = await paymentNow(t, m.acct.liveKey, p.id);
      expect(now.status).toBe('confirmed');
      expect(now.deposits.map((d: { status: string }) => d.status)).toEqual(['final', 'final']);
      await driveUntil(t, async () => {
        const all = await settlementsOf(t, p.id);
        return all.length === 2 && all.every((s) => s.status === 'completed');
      });
      const nets = (await settlementsOf(t, p.id)).map((s) => parseUnits(s.net, TOKEN_DEFS.ETH.decimals)!);
      expect(await balanceOf(nodes, 'ETH', m.addresses.ETH!)).toBe(nets[0] + nets[1]);
    });
  });
});
