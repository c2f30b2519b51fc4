// When sending goes wrong, on real nodes: a transaction left unmined is replaced with a higher fee
// and the same nonce, one the node lost is broadcast again (the same bytes), one whose block is
// reorganised away is counted again; a transfer that cannot be made is tried again with backoff,
// then `failed` with `settlement.failed`, and the operator retries it or returns it to the balance
// (`settlement_return`, audited as admin). Custodial deposits are swept into the service's wallet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { Address, Hex } from 'viem';
import { describeEachDb } from '../harness/databases.ts';
import { anvilOrSkip, deployTestToken } from '../harness/anvil.ts';
import { broadcastProxy, PROXY_REFUSAL, type BroadcastProxy } from '../harness/broadcast-proxy.ts';
import { useEvmNodes } from '../harness/evm-nodes.ts';
import { randomIp, tokenHeader } from '../harness/accounts.ts';
import type { Json } from '../harness/payments.ts';
import {
  ADMIN, balanceOf, createLivePayment, driveUntil, fundHotWallet, hotWallet, merchantWithAddresses, owed, pay, reportDeposit,
  settlementsOf, startChainApp, type ChainApp, type Merchant,
} from '../harness/chain-send.ts';
import { expectLedgerHolds } from '../harness/settlement.ts';
import { auditEntries } from '../../src/accounts/schema.ts';
import { events } from '../../src/events/index.ts';
import { balances, ledgerEntries } from '../../src/settlement/index.ts';
import { outgoingAttempts, outgoingTransfers } from '../../src/chains/transfers/index.ts';
import { parseUnits } from '../../src/money/index.ts';

const ETH_STUCK_MS = 180_000;

describe.runIf(anvilOrSkip())('sending faults', () => {
  const nodes = useEvmNodes();

  describeEachDb('faults', (h) => {
    let t: ChainApp;
    let hot: Address;
    beforeAll(async () => {
      t = await startChainApp(h.db(), nodes);
      hot = (await hotWallet(t, 'ethereum')).address;
      await fundHotWallet(nodes, 'ethereum', hot, 10n ** 18n, 10_000n * 10n ** 6n);
    });
    afterAll(async () => { await t.close(); });

    const admin = (method: 'GET' | 'POST', url: string, payload?: Json) =>
      t.app.inject({ method, url, ...(payload ? { payload } : {}), headers: ADMIN, remoteAddress: randomIp() });
    const transfersOf = (reference: string) => h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, reference));
    const attemptsOf = (id: string) => h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, id)).orderBy(outgoingAttempts.n);
    const pass = () => t.services.sending.transfers.runOnce();

    /** A USDT_ERC20 payout of 20 approved, its transfer recorded. */
    const approvedPayout = async (): Promise<{ m: Merchant; payout: Json }> => {
      const m = await merchantWithAddresses(t, ['USDT_ERC20']);
      await admin('POST', '/admin/ledger/adjustments', { merchant_id: m.acct.merchant.id, livemode: true, token: 'USDT_TRC20', amount: '50', note: 'opening' });
      const res = await t.app.inject({
        method: 'POST', url: '/merchant/payouts', remoteAddress: randomIp(), headers: tokenHeader(m.acct.accessToken), payload: { address_id: m.addressIds.USDT_ERC20, amount: '20' },
      });
      await admin('POST', `/admin/payouts/${res.json().payout.id}/approve`);
      return { m, payout: res.json().payout };
    };

    it('a stuck transaction is replaced with a higher fee and the same nonce; one the node lost is broadcast again; one is mined, once', async () => {
      const { m, payout } = await approvedPayout();
      const nonceBefore = await nodes.eth.client.getTransactionCount({ address: hot });
      await nodes.eth.test.setAutomine(false);
      try {
        await pass();
        const [tr] = await transfersOf(payout.id);
        expect(tr.status).toBe('sent');
        const [first] = await attemptsOf(tr.id);
        expect(await nodes.eth.client.getTransaction({ hash: first.txId as Hex })).toMatchObject({ nonce: nonceBefore });
        // not yet stuck: left alone
        t.clock.advance(ETH_STUCK_MS - 1000);
        await pass();
        expect(await attemptsOf(tr.id)).toHaveLength(1);
        // stuck: replaced, same nonce, every fee field at least 25% higher
        t.clock.advance(2000);
        await pass();
        const [, second] = await attemptsOf(tr.id);
        expect(second.nonce).toBe(first.nonce);
        expect(BigInt(second.fee.maxFeePerGas) * 100n).toBeGreaterThanOrEqual(BigInt(first.fee.maxFeePerGas) * 125n);
        expect(BigInt(second.fee.maxPriorityFeePerGas) * 100n).toBeGreaterThanOrEqual(BigInt(first.fee.maxPriorityFeePerGas) * 125n);
        expect(await nodes.eth.client.getTransaction({ hash: second.txId as Hex })).toMatchObject({ nonce: nonceBefore });
        // the node loses it: broadcast again, the same signed bytes, no new attempt
        await nodes.eth.client.request({ method: 'anvil_dropTransaction' as never, params: [second.txId] as never });
        await expect(nodes.eth.client.getTransaction({ hash: second.txId as Hex })).rejects.toThrow();
        t.clock.advance(ETH_STUCK_MS + 1000);
        await pass();
        expect(await attemptsOf(tr.id)).toHaveLength(2);
        expect(await nodes.eth.client.getTransaction({ hash: second.txId as Hex })).toMatchObject({ nonce: nonceBefore });
      } finally {
        await nodes.eth.test.setAutomine(true);
      }
      await nodes.eth.mine(1);
      await driveUntil(t, async () => (await transfersOf(payout.id))[0].status === 'final');
      const [done] = await transfersOf(payout.id);
      const [, second] = await attemptsOf(done.id);
      expect(done.txId).toBe(second.txId);
      expect(await nodes.eth.client.getTransactionCount({ address: hot })).toBe(nonceBefore + 1);
      expect(await balanceOf(nodes, 'USDT_ERC20', m.addresses.USDT_ERC20!)).toBe(parseUnits(payout.send_amount, 6));
    });

    it('a mined transfer whose block is reorganised away goes back to sent, is broadcast again and counted again', async () => {
      const { m, payout } = await approvedPayout();
      // signed and broadcast; anvil mines it at once, but its receipt may take a moment on a busy machine
      for (let i = 0; i < 50 && (await transfersOf(payout.id))[0].status !== 'mined'; i++) await pass();
      const [mined] = await transfersOf(payout.id);
      expect(mined.status).toBe('mined');
      await nodes.eth.client.request({ method: 'anvil_reorg' as never, params: [1, []] as never });
      await pass();
      expect((await transfersOf(payout.id))[0]).toMatchObject({ status: 'sent', block: null });
      expect(await balanceOf(nodes, 'USDT_ERC20', m.addresses.USDT_ERC20!)).toBe(0n);
      t.clock.advance(ETH_STUCK_MS + 1000);
      await driveUntil(t, async () => (await transfersOf(payout.id))[0].status === 'final');
      const [done] = await transfersOf(payout.id);
      expect(done.txId).toBe(mined.txId);
      expect(await balanceOf(nodes, 'USDT_ERC20', m.addresses.USDT_ERC20!)).toBe(parseUnits(payout.send_amount, 6));
    });

    describe('a direct settlement that cannot be sent', () => {
      // a contract that takes no ETH: every transfer to it reverts
      let refusing: Address;
      beforeAll(async () => { refusing = await deployTestToken(nodes.eth, { decimals: 6 }); });

      /** A live ETH payment settling to `refusing`, given up after five tries. */
      const failedSettlement = async (): Promise<{ m: Merchant; p: Json; s: Json }> => {
        const m = await merchantWithAddresses(t, []);
        const res = await t.app.inject({
          method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(m.acct.accessToken),
          payload: { token: 'ETH', address: refusing, password: m.acct.password },
        });
        expect(res.statusCode).toBe(201);
        const p = await createLivePayment(t, m, 'ETH');
        const paid = await pay(nodes, 'ETH', p.deposit_address, owed(p));
        await reportDeposit(t, p.deposit_address, 'ETH', paid, owed(p));
        const [s] = await settlementsOf(t, p.id);
        const delays = [30_000, 120_000, 600_000, 1_800_000];
        await pass();
        for (const d of delays) {
          const all = await transfersOf(s.id);
          const own = all.find((x) => x.purpose === 'settlement')!;
          expect(own).toMatchObject({ status: 'recorded', failures: delays.indexOf(d) + 1 });
          // the service's share waits behind it: a deposit address sends in order
          expect(all.find((x) => x.purpose === 'service_fee')).toMatchObject({ status: 'recorded', failures: 0 });
          expect(own.lastError).toMatch(/^the transfer would fail: /);
          t.clock.advance(d - 1000);
          await pass();
          expect((await transfersOf(s.id)).find((x) => x.purpose === 'settlement')!.failures).toBe(delays.indexOf(d) + 1);
          t.clock.advance(1000);
          await pass();
        }
        await t.platform.outbox.drainNow();
        return { m, p, s: (await settlementsOf(t, p.id))[0] };
      };

      it('is tried again with backoff, then failed with settlement.failed; the operator retries it and it completes', async () => {
        const { m, p, s } = await failedSettlement();
        expect(s).toMatchObject({ status: 'failed', mode: 'direct' });
        expect(s.note).toMatch(/^the transfer would fail: /);
        const failedHooks = await h.db().orm.select().from(events).where(and(eq(events.paymentId, p.id), eq(events.type, 'settlement.failed')));
        expect(failedHooks).toHaveLength(1);
        const listed = (await admin('GET', '/admin/settlements?status=failed')).json().settlements;
        expect(listed.map((x: Json) => x.id)).toContain(s.id);
        expect(listed.every((x: Json) => x.status === 'failed')).toBe(true);

        // the merchant's contract is fixed (no code any more); the operator tries again
        await nodes.eth.client.request({ method: 'anvil_setCode' as never, params: [refusing, '0x'] as never });
        const retried = await admin('POST', `/admin/settlements/${s.id}/retry`);
        expect(retried.statusCode).toBe(200);
        expect(retried.json().settlement).toMatchObject({ id: s.id, status: 'pending' });
        expect(retried.json().settlement.note).toBeUndefined();
        const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, m.acct.merchant.id), eq(auditEntries.action, 'settlement.retried')));
        expect(audit.map((a) => [(a.actor as Json).kind, a.subject])).toEqual([['admin', s.id]]);
        const before = await balanceOf(nodes, 'ETH', refusing);
        await driveUntil(t, async () => (await settlementsOf(t, p.id))[0].status === 'completed');
        const done = (await settlementsOf(t, p.id))[0];
        expect(await balanceOf(nodes, 'ETH', refusing) - before).toBe(parseUnits(done.net, 18));
        expect(done.tx_id).toMatch(/^0x/);
        // a completed settlement is not retried or returned
        for (const verb of ['retry', 'return']) {
          const res = await admin('POST', `/admin/settlements/${s.id}/${verb}`, { note: 'x' });
          expect([res.statusCode, res.json()]).toEqual([409, { error: 'only a failed direct settlement can be retried or returned' }]);
        }
        // contract code back for the next test
        await nodes.eth.client.request({ method: 'anvil_setCode' as never, params: [refusing, await nodes.eth.client.getCode({ address: nodes.usdtErc20 })] as never });
      });

      it('returned to the balance: settlement_return of net, completed to the balance, the deposit swept into the service\'s wallet', async () => {
        const { m, p, s } = await failedSettlement();
        const net = parseUnits(s.net, 18)!;
        const missing = await admin('POST', `/admin/settlements/${s.id}/return`, {});
        expect([missing.statusCode, missing.json()]).toEqual([400, { error: 'note is required' }]);
        const nul = await admin('POST', `/admin/settlements/${s.id}/return`, { note: 'a\u0000b' });
        expect([nul.statusCode, nul.json()]).toEqual([400, { error: 'note must not contain NUL characters' }]);
        const res = await admin('POST', `/admin/settlements/${s.id}/return`, { note: 'merchant wallet refuses ETH' });
        expect(res.statusCode).toBe(200);
        expect(res.json().settlement).toMatchObject({ id: s.id, status: 'completed', mode: 'custodial', note: 'returned to the balance: merchant wallet refuses ETH' });
        const entries = await h.db().orm.select().from(ledgerEntries).where(and(eq(ledgerEntries.merchantId, m.acct.merchant.id), eq(ledgerEntries.type, 'settlement_return')));
        expect(entries.map((e) => [e.token, e.amount, e.note])).toEqual([['ETH', net, 'merchant wallet refuses ETH']]);
        const [eth] = await h.db().orm.select().from(balances).where(and(eq(balances.merchantId, m.acct.merchant.id), eq(balances.livemode, true), eq(balances.token, 'ETH')));
        expect(eth.available).toBe(net);
        const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, m.acct.merchant.id), eq(auditEntries.action, 'settlement.returned')));
        expect(audit.map((a) => [(a.actor as Json).kind, a.note])).toEqual([['admin', 'merchant wallet refuses ETH']]);
        // the net that never left is swept: the deposit address keeps only gas dust
        await driveUntil(t, async () => (await transfersOf(s.id)).every((x) => x.status === 'final' || x.status === 'failed'));
        const sweep = (await transfersOf(s.id)).find((x) => x.purpose === 'sweep')!;
        expect(sweep).toMatchObject({ status: 'final', toAddress: hot });
        const tx = await nodes.eth.client.getTransaction({ hash: sweep.txId as Hex });
        expect([tx.to?.toLowerCase(), tx.value]).toEqual([hot.toLowerCase(), sweep.sentAmount]);
        expect(sweep.sentAmount! + sweep.minedFee!).toBeLessThanOrEqual(net);
        expect(await balanceOf(nodes, 'ETH', p.deposit_address)).toBeLessThan(net / 100n);
        await expectLedgerHolds(h.db());
      });
    });

    it('operator settlement routes: the admin token, unknown ids, bad status filters', async () => {
      const none = await t.app.inject({ method: 'GET', url: '/admin/settlements' });
      expect([none.statusCode, none.json()]).toEqual([401, { error: 'invalid admin token' }]);
      const bad = await admin('GET', '/admin/settlements?status=done');
      expect([bad.statusCode, bad.json()]).toEqual([400, { error: 'status must be one of pending, completed, held, failed' }]);
      for (const verb of ['retry', 'return']) {
        const res = await admin('POST', `/admin/settlements/stl_nope/${verb}`, { note: 'x' });
        expect([res.statusCode, res.json()]).toEqual([404, { error: 'settlement not found' }]);
      }
      const all = (await admin('GET', '/admin/settlements')).json().settlements as Json[];
      expect(all.length).toBeGreaterThan(0);
      expect(all.map((s) => s.created_at)).toEqual([...all.map((s) => s.created_at)].sort().reverse());
    });

    it.each(['ETH', 'USDT_ERC20'] as const)('custodial %s deposits are credited on paper and swept into the service\'s wallet', async (token) => {
      const m = await merchantWithAddresses(t, []);
      const set = await t.app.inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(m.acct.accessToken), payload: { settlement: 'custodial' } });
      expect(set.statusCode).toBe(200);
      const p = await createLivePayment(t, m, token);
      const amount = owed(p);
      await reportDeposit(t, p.deposit_address, token, await pay(nodes, token, p.deposit_address, amount), amount);
      const [s] = await settlementsOf(t, p.id);
      expect(s).toMatchObject({ mode: 'custodial', status: 'completed' });
      await driveUntil(t, async () => (await transfersOf(s.id)).every((x) => x.status === 'final'));
      const sweep = (await transfersOf(s.id)).find((x) => x.purpose === 'sweep')!;
      expect(sweep).toMatchObject({ amount, toAddress: hot });
      const tx = await nodes.eth.client.getTransaction({ hash: sweep.txId as Hex });
      if (token === 'ETH') {
        // a native sweep pays its own fee: the rest of the deposit arrives
        expect([tx.to?.toLowerCase(), tx.value]).toEqual([hot.toLowerCase(), sweep.sentAmount]);
        expect(sweep.sentAmount! + sweep.minedFee!).toBeLessThanOrEqual(amount);
        expect(amount - sweep.sentAmount! - sweep.minedFee!).toBeLessThan(amount / 100n);
      } else {
        // a token sweep moves all of it, its gas topped up from the hot wallet
        expect(tx.to?.toLowerCase()).toBe(nodes.usdtErc20.toLowerCase());
        expect([sweep.sentAmount, await balanceOf(nodes, token, p.deposit_address)]).toEqual([amount, 0n]);
        expect((await transfersOf(sweep.id)).map((g) => [g.purpose, g.status, g.toAddress])).toEqual([['gas_topup', 'final', p.deposit_address]]);
      }
    });
  });

  describeEachDb('a failover node refuses what the first node took', (h) => {
    let t: ChainApp;
    let hot: Address;
    let took: BroadcastProxy;
    let refuses: BroadcastProxy;
    beforeAll(async () => {
      // the first node takes broadcasts and drops the connection before answering; the second refuses them in its own words
      took = await broadcastProxy(nodes.eth.url);
      refuses = await broadcastProxy(nodes.eth.url);
      t = await startChainApp(h.db(), nodes, { ETHEREUM_RPC_URL: `${took.url},${refuses.url}` });
      hot = (await hotWallet(t, 'ethereum')).address;
      await fundHotWallet(nodes, 'ethereum', hot, 10n ** 18n, 10_000n * 10n ** 6n);
    });
    afterAll(async () => { await t.close(); await took.close(); await refuses.close(); });

    it('the transfer keeps its nonce and is found mined: the merchant is paid once', async () => {
      const m = await merchantWithAddresses(t, ['USDT_ERC20']);
      const admin = (url: string, payload?: Json) => t.app.inject({ method: 'POST', url, ...(payload ? { payload } : {}), headers: ADMIN, remoteAddress: randomIp() });
      await admin('/admin/ledger/adjustments', { merchant_id: m.acct.merchant.id, livemode: true, token: 'USDT_TRC20', amount: '50', note: 'opening' });
      const res = await t.app.inject({
        method: 'POST', url: '/merchant/payouts', remoteAddress: randomIp(), headers: tokenHeader(m.acct.accessToken), payload: { address_id: m.addressIds.USDT_ERC20, amount: '20' },
      });
      const payout = res.json().payout as Json & { id: string; send_amount: string };
      await admin(`/admin/payouts/${payout.id}/approve`);
      const nonceBefore = await nodes.eth.client.getTransactionCount({ address: hot });
      took.mode = 'drop';
      refuses.mode = 'refuse';
      await t.services.sending.transfers.runOnce();
      const transfer = () => h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, payout.id)).then((r) => r[0]);
      // the first node took it (anvil mines at once), the second refused it: that refusal proves nothing
      expect(took.broadcasts).toHaveLength(1);
      expect(refuses.broadcasts).toEqual(took.broadcasts);
      // anvil answers before its automined block is there: the count is waited for, not read once
      await expect.poll(() => nodes.eth.client.getTransactionCount({ address: hot }), { timeout: 10_000 }).toBe(nonceBefore + 1);
      expect(await transfer()).toMatchObject({ status: 'signed', uncertain: true, failures: 0 });
      expect((await transfer()).lastError).toContain(PROXY_REFUSAL);
      // the second node is the one in use now; its refusals go on, and the transaction is looked for in blocks
      t.clock.advance(10 * 60_000);
      await driveUntil(t, async () => (await transfer()).status === 'final');
      const done = await transfer();
      const attempts = await h.db().orm.select().from(outgoingAttempts).where(eq(outgoingAttempts.transferId, done.id));
      expect(attempts).toHaveLength(1);
      expect(done.txId).toBe(attempts[0].txId);
      expect(await nodes.eth.client.getTransactionCount({ address: hot })).toBe(nonceBefore + 1);
      expect(await balanceOf(nodes, 'USDT_ERC20', m.addresses.USDT_ERC20!)).toBe(parseUnits(payout.send_amount, 6));
    });
  });
});
