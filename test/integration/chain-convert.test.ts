// Live conversions carried out by the service's treasury, on real nodes (anvil, chain ids 1 and
// 56): a deposit whose coin has no payout address (rule 4) is swept into the service's hot wallet,
// priced and guarded at the market then (rule 5), and the merchant receives exactly `amount_out` of
// its payout coin from the service's hot wallet of that coin's chain; the settlement completes with
// that transfer's tx_id. A refused conversion is kept in the balance (rule 6); a hot wallet that
// cannot pay keeps the settlement pending until it is funded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, like } from 'drizzle-orm';
import type { Address, Hex } from 'viem';
import { describeEachDb } from '../harness/databases.ts';
import { anvilOrSkip } from '../harness/anvil.ts';
import { useEvmNodes } from '../harness/evm-nodes.ts';
import type { Json } from '../harness/payments.ts';
import {
  balanceOf, createLivePayment, fundHotWallet, hotWallet, merchantWithAddresses, owed, pay,
  reportDeposit, settlementsOf, startChainApp, type ChainApp,
} from '../harness/chain-send.ts';
import { expectLedgerHolds } from '../harness/settlement.ts';
import { parseUnits } from '../../src/money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../../src/tokens/index.ts';
import { events } from '../../src/events/index.ts';
import { outgoingAttempts, outgoingTransfers } from '../../src/chains/transfers/index.ts';
import { balances, ledgerEntries, payoutAddresses, payouts, settlements } from '../../src/settlement/schema.ts';
import { NOTE_CONVERTING } from '../../src/settlement/settlement-writer.ts';
import { noteWaitingFunds } from '../../src/settlement/conversions.ts';
import { NOTE_SWAP_BELOW_QUOTE } from '../../src/settlement/swap-guard.ts';
import type { MarketData } from '../../src/market/index.ts';

const units = (token: TokenSymbol, v: string) => parseUnits(v, TOKEN_DEFS[token].decimals)!;

/** Runs the transfer worker and the conversion step, mining a block on both nodes between passes, until `done()`. */
async function drive(t: ChainApp, done: () => Promise<boolean>, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await t.services.sending.transfers.runOnce();
    await t.services.settlement.advanceConversions();
    await t.platform.outbox.drainNow();
    if (await done()) return;
    await Promise.all([t.nodes.eth.mine(1), t.nodes.bsc.mine(1)]);
  }
  throw new Error(`not done after ${max} passes`);
}

describe.runIf(anvilOrSkip())('live conversions by the service\'s treasury', () => {
  const nodes = useEvmNodes();

  describeEachDb('swap and exchange', (h) => {
    let t: ChainApp;
    const hot: Record<string, string> = {};
    beforeAll(async () => {
      t = await startChainApp(h.db(), nodes);
      hot.ethereum = (await hotWallet(t, 'ethereum')).address;
      hot.bsc = (await hotWallet(t, 'bsc')).address;
      // gas on both, and USDT on Ethereum to pay converted settlements with
      await fundHotWallet(nodes, 'ethereum', hot.ethereum, 10n ** 18n, 100_000n * 10n ** 6n);
      await fundHotWallet(nodes, 'bsc', hot.bsc, 10n ** 18n);
    });
    afterAll(async () => { await t.close(); });

    const transfersOf = (id: string) => h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, id));
    const completed = async (paymentId: string) => (await settlementsOf(t, paymentId))[0]?.status === 'completed';

    /** A live payment in `token` for a merchant with only a USDT_ERC20 address, paid and final; its pending settlement. */
    async function paidPayment(token: TokenSymbol): Promise<{ p: Json; m: Awaited<ReturnType<typeof merchantWithAddresses>>; s: Json; amount: bigint }> {
      const m = await merchantWithAddresses(t, ['USDT_ERC20']);
      const p = await createLivePayment(t, m, token);
      const amount = owed(p);
      const paid = await pay(nodes, token, p.deposit_address, amount);
      await reportDeposit(t, p.deposit_address, token, paid, amount);
      const [s] = await settlementsOf(t, p.id);
      return { p, m, s, amount };
    }

    it('ETH into USDT_ERC20 (swap): the merchant receives exactly amount_out from the hot wallet, the service the ETH', async () => {
      const { p, m, s: pending, amount } = await paidPayment('ETH');
      expect(pending).toMatchObject({ mode: 'direct', status: 'pending', token: 'ETH', destination: m.addresses.USDT_ERC20, note: NOTE_CONVERTING });
      expect(pending.conversion).toMatchObject({ via: 'swap', from: 'ETH', to: 'USDT_ERC20', status: 'pending' });
      // nothing is in the ledger before the conversion is carried out
      expect(await h.db().orm.select().from(ledgerEntries).where(eq(ledgerEntries.paymentId, p.id))).toEqual([]);
      const ethBefore = await balanceOf(nodes, 'ETH', hot.ethereum);
      const usdtBefore = await balanceOf(nodes, 'USDT_ERC20', hot.ethereum);

      await drive(t, () => completed(p.id));
      const [s] = await settlementsOf(t, p.id);
      const out = units('USDT_ERC20', s.conversion.amount_out);
      expect(out).toBeGreaterThan(0n);
      expect(units('ETH', s.conversion.amount_in)).toBe(units('ETH', s.net));
      expect(s.conversion).toMatchObject({ via: 'swap', status: 'done' });
      expect(s.note).toBeUndefined();
      // exactly amount_out, to the base unit, from the service's hot wallet
      expect(await balanceOf(nodes, 'USDT_ERC20', m.addresses.USDT_ERC20!)).toBe(out);
      expect(usdtBefore - await balanceOf(nodes, 'USDT_ERC20', hot.ethereum)).toBe(out);
      const receipt = await nodes.eth.client.getTransactionReceipt({ hash: s.tx_id as Hex });
      expect(receipt.status).toBe('success');
      expect((await nodes.eth.client.getTransaction({ hash: s.tx_id as Hex })).from.toLowerCase()).toBe(hot.ethereum.toLowerCase());
      // the whole deposit went to the service: what the sweep carried (less its own gas), less the payout's gas
      const rows = await transfersOf(s.id);
      expect(rows.map((r) => [r.purpose, r.fromRole, r.status]).sort()).toEqual([['settlement', 'hot', 'final'], ['sweep', 'deposit', 'final']]);
      const sweep = rows.find((r) => r.purpose === 'sweep')!;
      const payout = rows.find((r) => r.purpose === 'settlement')!;
      // a native sweep pays its own gas out of the deposit: what its fee reserve did not spend stays behind, to the unit
      expect(sweep.sentAmount! + sweep.minedFee!).toBeLessThanOrEqual(amount);
      expect(await balanceOf(nodes, 'ETH', p.deposit_address)).toBe(amount - sweep.sentAmount! - sweep.minedFee!);
      expect(await balanceOf(nodes, 'ETH', hot.ethereum) - ethBefore).toBe(sweep.sentAmount! - payout.minedFee!);
      expect(payout).toMatchObject({ token: 'USDT_ERC20', amount: out, sentAmount: out, toAddress: m.addresses.USDT_ERC20, txId: s.tx_id });
      // one transfer from the deposit address, nothing sent twice
      expect(await nodes.eth.client.getTransactionCount({ address: p.deposit_address as Address })).toBe(1);
      // the ledger: credited, fees, converted, and sent
      const entries = await h.db().orm.select().from(ledgerEntries).where(eq(ledgerEntries.paymentId, p.id));
      expect(entries.map((e) => [e.type, e.token]).sort()).toEqual([
        ['conversion_fee', 'ETH'], ['conversion_in', 'USDT_ERC20'], ['conversion_out', 'ETH'], ['fee', 'ETH'], ['network_fee', 'ETH'],
        ['payment_credit', 'ETH'], ['settlement', 'USDT_ERC20'],
      ]);
      const hooks = (await h.db().orm.select().from(events).where(eq(events.paymentId, p.id))).filter((e) => e.type === 'settlement.completed');
      expect(hooks).toHaveLength(1);
      expect(hooks[0].data).toMatchObject({ id: s.id, tx_id: s.tx_id, conversion: { status: 'done' } });
      await expectLedgerHolds(h.db());
    });

    it('BNB into USDT_ERC20 (exchange across networks): swept on BNB Smart Chain, paid on Ethereum', async () => {
      const { p, m, s: pending, amount } = await paidPayment('BNB');
      expect(pending.conversion).toMatchObject({ via: 'exchange', from: 'BNB', to: 'USDT_ERC20', status: 'pending' });
      const bnbBefore = await balanceOf(nodes, 'BNB', hot.bsc);
      await drive(t, () => completed(p.id));
      const [s] = await settlementsOf(t, p.id);
      const out = units('USDT_ERC20', s.conversion.amount_out);
      expect(s.conversion).toMatchObject({ via: 'exchange', status: 'done' });
      expect(await balanceOf(nodes, 'USDT_ERC20', m.addresses.USDT_ERC20!)).toBe(out);
      // tx_id: the payout on Ethereum (spec: for cross-network conversion, the exchange's payout)
      expect((await nodes.eth.client.getTransactionReceipt({ hash: s.tx_id as Hex })).status).toBe('success');
      const sweep = (await transfersOf(s.id)).find((r) => r.purpose === 'sweep')!;
      expect(sweep.chain).toBe('bsc');
      expect(await balanceOf(nodes, 'BNB', p.deposit_address)).toBe(amount - sweep.sentAmount! - sweep.minedFee!);
      expect(await balanceOf(nodes, 'BNB', hot.bsc) - bnbBefore).toBe(sweep.sentAmount);
      await expectLedgerHolds(h.db());
    });

    it('a backlog of conversions that cannot move yet does not hold back one that can', async () => {
      // 500 older treasury conversions waiting on a chain that cannot send (no Tron node here):
      // each pass must still reach a newer ETH conversion behind them
      const { s: pending } = await paidPayment('ETH');
      const [row] = await h.db().orm.select().from(settlements).where(eq(settlements.id, pending.id));
      const waiting = Array.from({ length: 500 }, (_, i) => ({
        ...row, id: `${row.id}_w${i}`, chain: 'tron', token: 'TRX', createdAt: new Date(row.createdAt.getTime() - 60_000 - i),
        conversion: { ...(row.conversion as object), from: 'TRX', sweep: undefined }, transferIntents: null,
      }));
      await h.db().orm.insert(settlements).values(waiting);
      const ownRow = async () => (await h.db().orm.select().from(settlements).where(eq(settlements.id, pending.id)))[0] as { status: string; conversion: unknown };
      try {
        await drive(t, async () => (await ownRow()).status === 'completed', 20);
      } finally {
        await h.db().orm.delete(settlements).where(like(settlements.id, `${row.id}_w%`));
      }
      expect((await ownRow()).conversion).toMatchObject({ status: 'done' });
    }, 240_000);

    it(`a price that moved by execution refuses the conversion: rule 6, kept in the USDT balance with "${NOTE_SWAP_BELOW_QUOTE}"`, async () => {
      const { p, m, s: pending } = await paidPayment('ETH');
      expect(pending.conversion).toMatchObject({ via: 'swap', status: 'pending' });
      const market = t.services.settlement.market as { snapshot: (livemode: boolean) => MarketData };
      const original = market.snapshot;
      // ETH falls 2% while the deposit is swept: the quote would now be more than 0.5% above market
      market.snapshot = (livemode) => {
        const d = original(livemode);
        return livemode ? { ...d, ETH: { ...d.ETH, rate: d.ETH.rate.mul('0.98') } } : d;
      };
      try {
        await drive(t, () => completed(p.id));
      } finally {
        market.snapshot = original;
      }
      const [s] = await settlementsOf(t, p.id);
      expect(s).toMatchObject({ mode: 'custodial', status: 'completed', note: NOTE_SWAP_BELOW_QUOTE });
      expect(s.conversion).toMatchObject({ via: 'swap', to: 'USDT_ERC20', status: 'skipped', note: NOTE_SWAP_BELOW_QUOTE });
      expect(s.tx_id).toBeUndefined();
      // nothing reached the merchant's wallet; the deposit is the service's (one sweep, no payout)
      expect(await balanceOf(nodes, 'USDT_ERC20', m.addresses.USDT_ERC20!)).toBe(0n);
      expect((await transfersOf(s.id)).map((r) => r.purpose)).toEqual(['sweep']);
      expect(await nodes.eth.client.getTransactionCount({ address: p.deposit_address as Address })).toBe(1);
      // bought into the USDT_TRC20 balance at the market then (1.5%), and paid out automatically to the USDT address (rule 6)
      const [bal] = await h.db().orm.select().from(balances).where(eq(balances.merchantId, m.acct.merchant.id));
      expect(bal).toMatchObject({ token: 'USDT_TRC20' });
      const entries = await h.db().orm.select().from(ledgerEntries).where(eq(ledgerEntries.paymentId, p.id));
      const bought = entries.find((e) => e.type === 'conversion_in')!;
      expect(bought).toMatchObject({ token: 'USDT_TRC20', note: NOTE_SWAP_BELOW_QUOTE });
      expect(entries.some((e) => e.type === 'settlement')).toBe(false);
      const [auto] = await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.acct.merchant.id));
      expect(auto).toMatchObject({ requestedBy: 'auto', amount: bought.amount });
      const hooks = (await h.db().orm.select().from(events).where(eq(events.paymentId, p.id))).filter((e) => e.type === 'settlement.completed');
      expect(hooks).toEqual([]);
      await expectLedgerHolds(h.db());
    });
  });

  describeEachDb('an unfunded hot wallet', (h) => {
    let t: ChainApp;
    beforeAll(async () => { t = await startChainApp(h.db(), nodes); });
    afterAll(async () => { await t.close(); });

    it('keeps the settlement pending with a note and needs_funding, then completes once funded', async () => {
      const m = await merchantWithAddresses(t, ['USDT_ERC20']);
      const p = await createLivePayment(t, m, 'ETH');
      const amount = owed(p);
      await reportDeposit(t, p.deposit_address, 'ETH', await pay(nodes, 'ETH', p.deposit_address, amount), amount);
      const note = async () => (await settlementsOf(t, p.id))[0].note;
      await drive(t, async () => (await note()) === noteWaitingFunds('ethereum'));
      const wallet = await hotWallet(t, 'ethereum');
      expect(wallet.needs_funding).toBe(true);
      const [s] = await settlementsOf(t, p.id);
      expect(s).toMatchObject({ status: 'pending', conversion: { status: 'pending' } });
      // a few more passes change nothing
      for (let i = 0; i < 3; i++) await drive(t, async () => true);
      expect((await settlementsOf(t, p.id))[0]).toMatchObject({ status: 'pending', note: noteWaitingFunds('ethereum') });
      expect(await balanceOf(nodes, 'USDT_ERC20', m.addresses.USDT_ERC20!)).toBe(0n);

      await fundHotWallet(nodes, 'ethereum', wallet.address, 0n, 10_000n * 10n ** 6n);
      await drive(t, () => completed(p.id));
      const [done] = await settlementsOf(t, p.id);
      expect(done.note).toBeUndefined();
      expect(await balanceOf(nodes, 'USDT_ERC20', m.addresses.USDT_ERC20!)).toBe(units('USDT_ERC20', done.conversion.amount_out));
      await expectLedgerHolds(h.db());
    });

    const completed = async (paymentId: string) => (await settlementsOf(t, paymentId))[0]?.status === 'completed';
  });

  describeEachDb('a destination refused while the payout waits for funds', (h) => {
    let t: ChainApp;
    beforeAll(async () => { t = await startChainApp(h.db(), nodes); });
    afterAll(async () => { await t.close(); });

    it('the payout, nothing signed for it, is canceled and what was bought stays in the balance; funding the wallet later sends nothing', async () => {
      const m = await merchantWithAddresses(t, ['USDT_ERC20']);
      const p = await createLivePayment(t, m, 'ETH');
      const amount = owed(p);
      await reportDeposit(t, p.deposit_address, 'ETH', await pay(nodes, 'ETH', p.deposit_address, amount), amount);
      await drive(t, async () => (await settlementsOf(t, p.id))[0].note === noteWaitingFunds('ethereum'));
      const [waiting] = await settlementsOf(t, p.id);
      const transfers = () => h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, waiting.id));
      const payoutRow = async () => (await transfers()).find((r) => r.purpose === 'settlement')!;
      expect(await payoutRow()).toMatchObject({ status: 'recorded', waiting: 'funds', toAddress: m.addresses.USDT_ERC20 });
      // refused by now: as an old database holds it, the destination is this chain's USDT contract
      const contract = nodes.usdtErc20;
      await h.db().orm.update(settlements).set({ destination: contract }).where(eq(settlements.id, waiting.id));
      await h.db().orm.update(payoutAddresses).set({ address: contract }).where(eq(payoutAddresses.id, m.addressIds.USDT_ERC20!));
      await drive(t, () => completed(p.id));
      const [kept] = await settlementsOf(t, p.id);
      const out = units('USDT_ERC20', kept.conversion.amount_out);
      expect(kept).toMatchObject({
        mode: 'custodial', status: 'completed', note: 'payout address refused: address is the USDT_ERC20 token contract: tokens sent there are lost',
        conversion: { ...waiting.conversion, status: 'done' },
      });
      expect([kept.destination, kept.tx_id]).toEqual([undefined, undefined]);
      const payout = await payoutRow();
      expect(payout).toMatchObject({ status: 'canceled', txId: null, nonce: null });
      expect(await h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, payout.id))).toEqual([]);
      const [bal] = await h.db().orm.select().from(balances).where(and(eq(balances.merchantId, m.acct.merchant.id), eq(balances.token, 'USDT_ERC20')));
      expect([bal.available, bal.pendingPayout]).toEqual([out, 0n]);
      // the hot wallet funded: nothing leaves it for the contract
      const wallet = await hotWallet(t, 'ethereum');
      expect(wallet.needs_funding).toBe(false);
      const atContract = await balanceOf(nodes, 'USDT_ERC20', contract);
      await fundHotWallet(nodes, 'ethereum', wallet.address, 10n ** 18n, 10_000n * 10n ** 6n);
      for (let i = 0; i < 3; i++) await drive(t, async () => true);
      expect(await balanceOf(nodes, 'USDT_ERC20', contract)).toBe(atContract);
      expect(await balanceOf(nodes, 'USDT_ERC20', wallet.address)).toBe(10_000n * 10n ** 6n);
      expect((await transfers()).map((r) => [r.purpose, r.status]).sort()).toEqual([['settlement', 'canceled'], ['sweep', 'final']]);
      await expectLedgerHolds(h.db());
    });

    const completed = async (paymentId: string) => (await settlementsOf(t, paymentId))[0]?.status === 'completed';
  });
});
