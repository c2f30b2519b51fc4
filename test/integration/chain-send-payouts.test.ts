// Payouts the service sends itself (spec 1 Payouts: USDT on BNB Smart Chain and Ethereum), from its
// hot wallet on real nodes: sent once approved, `payout.sent` with `tx_id` once final; a hot wallet
// without funds says so in /admin/wallets and sends once funded; parallel sends from one hot wallet
// (two workers at once) never share a nonce; other coins stay with the operator; a payout on its
// way can no longer be rejected or marked sent by hand. And rule 6's automatic payout, made when a
// USDT address arrives after the balance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { Address } from 'viem';
import { describeEachDb } from '../harness/databases.ts';
import { anvilOrSkip } from '../harness/anvil.ts';
import { useEvmNodes } from '../harness/evm-nodes.ts';
import { randomIp, tokenHeader } from '../harness/accounts.ts';
import type { Json } from '../harness/payments.ts';
import {
  ADMIN, addPayoutAddress, balanceOf, driveUntil, fundHotWallet, hotWallet, merchantWithAddresses, type ChainApp,
  type Merchant, startChainApp,
} from '../harness/chain-send.ts';
import { expectLedgerHolds, input, payment } from '../harness/settlement.ts';
import { auditEntries } from '../../src/accounts/schema.ts';
import { events } from '../../src/events/index.ts';
import { rescaleUnitsDown, parseUnits } from '../../src/money/index.ts';
import { outgoingTransfers } from '../../src/chains/transfers/index.ts';
import { chainNodes } from '../../src/chains/rpc/nodes.ts';
import { ChainSending } from '../../src/chains/sending/index.ts';

describe.runIf(anvilOrSkip())('payouts sent by the service', () => {
  const nodes = useEvmNodes();

  describeEachDb('payouts', (h) => {
    let t: ChainApp;
    beforeAll(async () => { t = await startChainApp(h.db(), nodes); });
    afterAll(async () => { await t.close(); });

    const admin = (method: 'GET' | 'POST', url: string, payload?: Json) =>
      t.app.inject({ method, url, ...(payload ? { payload } : {}), headers: ADMIN, remoteAddress: randomIp() });
    const credit = async (m: Merchant, amount: string) => {
      const res = await admin('POST', '/admin/ledger/adjustments', { merchant_id: m.acct.merchant.id, livemode: true, token: 'USDT_TRC20', amount, note: 'opening balance' });
      expect(res.statusCode).toBe(201);
    };
    const requestPayout = async (m: Merchant, token: string, amount: string): Promise<Json> => {
      const res = await t.app.inject({
        method: 'POST', url: '/merchant/payouts', remoteAddress: randomIp(), headers: tokenHeader(m.acct.accessToken), payload: { address_id: m.addressIds[token as 'USDT_BEP20'], amount },
      });
      expect(res.statusCode).toBe(201);
      return res.json().payout;
    };
    const payoutOf = async (id: string): Promise<Json> => (await admin('GET', '/admin/payouts')).json().payouts.find((p: Json) => p.id === id);
    const transfersOf = (reference: string) => h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, reference));
    /** On-chain units of the payout coin: the balance coin's send_amount, rescaled (USDT_TRC20 has 6 decimals, USDT_BEP20 18). */
    const onChain = (p: Json, decimals: number) => rescaleUnitsDown(parseUnits(p.send_amount, 6)!, 6, decimals);

    it('a USDT_BEP20 payout waits for an unfunded hot wallet (needs_funding), then is sent once funded, with payout.sent and tx_id, and the network fee it paid recorded', async () => {
      const m = await merchantWithAddresses(t, ['USDT_BEP20']);
      await credit(m, '100');
      const p = await requestPayout(m, 'USDT_BEP20', '60');
      expect((await admin('POST', `/admin/payouts/${p.id}/approve`)).json().payout.status).toBe('approved');
      const [intent] = await transfersOf(p.id);
      expect(intent).toMatchObject({ purpose: 'payout', chain: 'bsc', token: 'USDT_BEP20', fromRole: 'hot', toAddress: m.addresses.USDT_BEP20, amount: onChain(p, 18) });

      await t.services.sending.transfers.runOnce();
      let wallet = await hotWallet(t, 'bsc');
      expect(wallet).toMatchObject({ needs_funding: true, balances: [{ token: 'BNB', amount: '0' }, { token: 'USDT_BEP20', amount: '0' }] });
      expect((await transfersOf(p.id))[0]).toMatchObject({ status: 'recorded', waiting: 'funds', nonce: null });
      // nothing is lost or half-sent while it waits, however often the worker passes
      await t.services.sending.transfers.runOnce();
      expect(await nodes.bsc.client.getTransactionCount({ address: wallet.address as Address })).toBe(0);

      await fundHotWallet(nodes, 'bsc', wallet.address, 10n ** 17n, 1000n * 10n ** 18n);
      const bnbBefore = await balanceOf(nodes, 'BNB', wallet.address);
      await driveUntil(t, async () => (await payoutOf(p.id)).status === 'sent');
      const sent = await payoutOf(p.id);
      expect(await balanceOf(nodes, 'USDT_BEP20', m.addresses.USDT_BEP20!)).toBe(onChain(p, 18));
      const [done] = await transfersOf(p.id);
      expect(sent.tx_id).toBe(done.txId);
      expect(done.status).toBe('final');
      const receipt = await nodes.bsc.client.getTransactionReceipt({ hash: sent.tx_id });
      expect(receipt.status).toBe('success');
      // the fee recorded is what the network took: gas used at the price paid for it, all the BNB the hot wallet spent
      expect(receipt.effectiveGasPrice).toBeGreaterThan(1n);
      expect(done.minedFee).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
      expect(bnbBefore - await balanceOf(nodes, 'BNB', wallet.address)).toBe(done.minedFee);
      const hooks = await h.db().orm.select().from(events).where(and(eq(events.merchantId, m.acct.merchant.id), eq(events.type, 'payout.sent')));
      expect(hooks.map((e) => (e.data as Json).tx_id)).toEqual([sent.tx_id]);
      const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, m.acct.merchant.id), eq(auditEntries.action, 'payout.sent')));
      expect(audit.map((a) => (a.actor as Json).kind)).toEqual(['system']);
      // the 60 s balance cache is past once the clock moves on
      t.clock.advance(61_000);
      wallet = await hotWallet(t, 'bsc');
      expect(wallet.needs_funding).toBe(false);
      expect(wallet.balances.find((b: Json) => b.token === 'USDT_BEP20').amount).toBe(String(1000 - Number(sent.send_amount)));
      await expectLedgerHolds(h.db());
    });

    it('parallel sends from one hot wallet (two workers at once) take distinct nonces, every payout arrives once', async () => {
      const hot = (await hotWallet(t, 'ethereum')).address as Address;
      await fundHotWallet(nodes, 'ethereum', hot, 10n ** 18n, 10_000n * 10n ** 6n);
      const startNonce = await nodes.eth.client.getTransactionCount({ address: hot });
      const merchants = await Promise.all(Array.from({ length: 5 }, () => merchantWithAddresses(t, ['USDT_ERC20'])));
      const payouts: Json[] = [];
      for (const m of merchants) {
        await credit(m, '50');
        payouts.push(await requestPayout(m, 'USDT_ERC20', '40'));
      }
      await nodes.eth.test.setAutomine(false);
      try {
        await Promise.all(payouts.map((p) => admin('POST', `/admin/payouts/${p.id}/approve`)));
        // a second process's worker over the same database
        const other = await ChainSending.create(t.platform, chainNodes(t.config));
        for (let i = 0; i < 3; i++) await Promise.all([t.services.sending.transfers.runOnce(), other.transfers.runOnce()]);
        const rows = (await Promise.all(payouts.map((p) => transfersOf(p.id)))).flat();
        expect(rows.map((r) => r.status)).toEqual(Array(5).fill('sent'));
        expect(rows.map((r) => Number(r.nonce)).sort()).toEqual([0, 1, 2, 3, 4].map((n) => n + startNonce));
      } finally {
        await nodes.eth.test.setAutomine(true);
      }
      await nodes.eth.mine(1);
      await driveUntil(t, async () => (await Promise.all(payouts.map((p) => payoutOf(p.id)))).every((p) => p.status === 'sent'));
      for (const [i, m] of merchants.entries()) expect(await balanceOf(nodes, 'USDT_ERC20', m.addresses.USDT_ERC20!)).toBe(onChain(payouts[i], 6));
      expect(await nodes.eth.client.getTransactionCount({ address: hot })).toBe(startNonce + 5);
    });

    it('a payout on its way can no longer be rejected or marked sent by hand; one still waiting for funds is called back', async () => {
      // its own funds: the Ethereum hot wallet can pay this payout whatever ran before (or did not)
      const ethHot = (await hotWallet(t, 'ethereum')).address as Address;
      await fundHotWallet(nodes, 'ethereum', ethHot, 10n ** 17n, 100n * 10n ** 6n);
      const m = await merchantWithAddresses(t, ['USDT_ERC20']);
      await credit(m, '100');
      const p = await requestPayout(m, 'USDT_ERC20', '30');
      await nodes.eth.test.setAutomine(false);
      try {
        await admin('POST', `/admin/payouts/${p.id}/approve`);
        await t.services.sending.transfers.runOnce();
        expect((await transfersOf(p.id))[0].status).toBe('sent');
        for (const [verb, body] of [['reject', { note: 'changed my mind' }], ['sent', { tx_id: '0xabc' }]] as const) {
          const res = await admin('POST', `/admin/payouts/${p.id}/${verb}`, body);
          expect([res.statusCode, res.json()]).toEqual([409, { error: 'payout is being sent by the service' }]);
        }
      } finally {
        await nodes.eth.test.setAutomine(true);
      }
      await nodes.eth.mine(1);
      await driveUntil(t, async () => (await payoutOf(p.id)).status === 'sent');

      // a payout the hot wallet cannot pay yet (it holds less than 2,000 USDT_BEP20, whatever ran before): rejected, its transfer canceled, nothing ever sent
      const bscHot = (await hotWallet(t, 'bsc')).address as Address;
      expect(await balanceOf(nodes, 'USDT_BEP20', bscHot)).toBeLessThan(2000n * 10n ** 18n);
      const waiting = await merchantWithAddresses(t, ['USDT_BEP20']);
      await credit(waiting, '5000');
      const q = await requestPayout(waiting, 'USDT_BEP20', '2000');
      await admin('POST', `/admin/payouts/${q.id}/approve`);
      await t.services.sending.transfers.runOnce();
      expect((await transfersOf(q.id))[0]).toMatchObject({ status: 'recorded', waiting: 'funds' });
      const rejected = await admin('POST', `/admin/payouts/${q.id}/reject`, { note: 'too large for the hot wallet' });
      expect(rejected.json().payout.status).toBe('rejected');
      expect((await transfersOf(q.id))[0].status).toBe('canceled');
      await t.services.sending.transfers.runOnce();
      expect(await balanceOf(nodes, 'USDT_BEP20', waiting.addresses.USDT_BEP20!)).toBe(0n);
      await expectLedgerHolds(h.db());
    });

    it('payouts of other coins stay with the operator: no transfer, marked sent by hand', async () => {
      const m = await merchantWithAddresses(t, []);
      await addPayoutAddress(t, m, 'USDT_BEP20');
      await credit(m, '100');
      // a Tron address: sent by the team
      const res = await t.app.inject({
        method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(m.acct.accessToken),
        payload: { token: 'USDT_TRC20', address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', password: m.acct.password },
      });
      m.addressIds.USDT_TRC20 = res.json().address.id;
      const p = await requestPayout(m, 'USDT_TRC20', '20');
      await admin('POST', `/admin/payouts/${p.id}/approve`);
      expect(await transfersOf(p.id)).toEqual([]);
      const sent = await admin('POST', `/admin/payouts/${p.id}/sent`, { tx_id: 'tron-tx-1' });
      expect(sent.json().payout).toMatchObject({ status: 'sent', tx_id: 'tron-tx-1' });
    });

    it('rule 6: a USDT balance that waited for a USDT address is paid out automatically once one is added', async () => {
      const m = await merchantWithAddresses(t, []);
      const merchantId = m.acct.merchant.id;
      // a live TRX deposit with no payout coin to convert into: kept in the USDT balance (rule 6)
      const p = payment(merchantId, { livemode: true, token: 'TRX', rate_locked: '0.25' });
      const [s] = await t.services.settlement.settle(h.db(), input(p, [{ amount: 200_000_000n, usd: '50' }]));
      expect(s).toMatchObject({ mode: 'custodial', status: 'completed' });
      await t.services.settlement.replanDue();
      expect((await admin('GET', '/admin/payouts')).json().payouts.filter((x: Json) => x.merchant_id === merchantId)).toEqual([]);
      await addPayoutAddress(t, m, 'USDT_BEP20');
      await t.services.settlement.replanDue();
      const made = (await admin('GET', '/admin/payouts')).json().payouts.filter((x: Json) => x.merchant_id === merchantId);
      expect(made).toMatchObject([{ requested_by: 'auto', token: 'USDT_BEP20', from_token: 'USDT_TRC20', address_id: m.addressIds.USDT_BEP20, status: 'requested' }]);
      // once: the whole balance is held by it
      await t.services.settlement.replanDue();
      expect((await admin('GET', '/admin/payouts')).json().payouts.filter((x: Json) => x.merchant_id === merchantId)).toHaveLength(1);
      await expectLedgerHolds(h.db());
    });

    it('rule 6: an automatic payout the operator rejects or the merchant cancels is not requested again by the minute job', async () => {
      for (const verb of ['reject', 'cancel'] as const) {
        const m = await merchantWithAddresses(t, []);
        const merchantId = m.acct.merchant.id;
        const autoPayouts = async () => (await admin('GET', '/admin/payouts')).json().payouts.filter((x: Json) => x.merchant_id === merchantId);
        const p = payment(merchantId, { livemode: true, token: 'TRX', rate_locked: '0.25' });
        const [s] = await t.services.settlement.settle(h.db(), input(p, [{ amount: 200_000_000n, usd: '50' }]));
        expect(s).toMatchObject({ mode: 'custodial', status: 'completed' });
        await addPayoutAddress(t, m, 'USDT_BEP20');
        t.clock.advance(1000);
        await t.services.settlement.replanDue();
        const [made] = await autoPayouts();
        expect(made).toMatchObject({ requested_by: 'auto', status: 'requested' });
        // refused by the operator, or called back by the merchant: the amount is back in the balance, and stays there
        const res = verb === 'reject'
          ? await admin('POST', `/admin/payouts/${made.id}/reject`, { note: 'address under review' })
          : await t.app.inject({ method: 'POST', url: `/merchant/payouts/${made.id}/cancel`, headers: tokenHeader(m.acct.accessToken) });
        expect(res.statusCode).toBe(200);
        for (let i = 0; i < 3; i++) {
          t.clock.advance(60_000);
          await t.services.settlement.replanDue();
        }
        expect((await autoPayouts()).map((x: Json) => x.status)).toEqual([verb === 'reject' ? 'rejected' : 'canceled']);
        const balances = (await t.app.inject({ method: 'GET', url: '/merchant/balances', headers: tokenHeader(m.acct.accessToken) })).json().balances;
        expect(balances.find((b: Json) => b.token === 'USDT_TRC20')).toMatchObject({ available: made.amount, pending_payout: '0' });
      }
      await expectLedgerHolds(h.db());
    });

    it('rule 6: with no USDT address on BNB Smart Chain, the balance waits until an Ethereum USDT address is active, then goes there', async () => {
      const m = await merchantWithAddresses(t, []);
      const merchantId = m.acct.merchant.id;
      const autoPayouts = async () => (await admin('GET', '/admin/payouts')).json().payouts.filter((x: Json) => x.merchant_id === merchantId);
      // an Ethereum USDT address deleted: the next one added is active only 24 hours later
      const first = await addPayoutAddress(t, m, 'USDT_ERC20');
      const removed = await t.app.inject({ method: 'DELETE', url: `/merchant/payout-addresses/${m.addressIds.USDT_ERC20}`, headers: tokenHeader(m.acct.accessToken) });
      expect(removed.statusCode).toBe(200);
      const p = payment(merchantId, { livemode: true, token: 'TRX', rate_locked: '0.25' });
      const [s] = await t.services.settlement.settle(h.db(), input(p, [{ amount: 200_000_000n, usd: '50' }]));
      expect(s).toMatchObject({ mode: 'custodial', status: 'completed' });
      await t.services.settlement.replanDue();
      expect(await autoPayouts()).toEqual([]);
      const again = await addPayoutAddress(t, m, 'USDT_ERC20');
      expect(again).not.toBe(first);
      await t.services.settlement.replanDue();
      // added, not active yet: still waiting
      expect(await autoPayouts()).toEqual([]);
      t.clock.advance(24 * 60 * 60 * 1000 + 1000);
      await t.services.settlement.replanDue();
      expect(await autoPayouts()).toMatchObject([{ requested_by: 'auto', token: 'USDT_ERC20', from_token: 'USDT_TRC20', address_id: m.addressIds.USDT_ERC20, status: 'requested' }]);
      await expectLedgerHolds(h.db());
    });
  });
});
