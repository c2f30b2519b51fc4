// A node without eth_getBlockReceipts (issue 13): a proxy in front of anvil answers it "method not
// found". The watcher falls back to eth_getLogs for the block's token transfers and a receipt per
// native transfer to a watched address, and remembers that node: deposits are still seen, a
// reverted transfer is still never counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { describeEachDb } from '../harness/databases.ts';
import { anvilOrSkip } from '../harness/anvil.ts';
import { useEvmNodes } from '../harness/evm-nodes.ts';
import { startRpcProxy, type RpcProxy } from '../harness/rpc-proxy.ts';
import { createLivePayment, merchantWithAddresses, owed, pay, startChainApp, type ChainApp } from '../harness/chain-send.ts';
import { paymentNow, watchOnce } from '../harness/chain-watch.ts';

// PUSH1 0 PUSH1 0 REVERT: whatever is sent to an address with this code reverts
const REVERTING_CODE = '0x60006000fd';

describe.runIf(anvilOrSkip())('a node without eth_getBlockReceipts', () => {
  const nodes = useEvmNodes();

  describeEachDb('behind a proxy refusing it', (h) => {
    let t: ChainApp;
    let proxy: RpcProxy;
    beforeAll(async () => {
      proxy = await startRpcProxy(nodes.eth.url, ['eth_getBlockReceipts']);
      t = await startChainApp(h.db(), nodes, { ETHEREUM_RPC_URL: proxy.url });
      await watchOnce(t);
    });
    afterAll(async () => { await t.close(); await proxy.close(); });

    it('sees ETH and USDT deposits, asks eth_getBlockReceipts of that node once, and reads receipts only of watched transfers', async () => {
      const m = await merchantWithAddresses(t, ['ETH', 'USDT_ERC20']);
      const eth = await createLivePayment(t, m, 'ETH');
      const usdt = await createLivePayment(t, m, 'USDT_ERC20');
      const paidEth = await pay(nodes, 'ETH', eth.deposit_address, owed(eth));
      const paidUsdt = await pay(nodes, 'USDT_ERC20', usdt.deposit_address, owed(usdt));
      // an ETH transfer to an address nobody watches
      await pay(nodes, 'ETH', '0x000000000000000000000000000000000000dEaD', 1n);
      proxy.calls.clear();
      await watchOnce(t);
      expect((await paymentNow(t, m.acct.liveKey, eth.id)).deposits).toEqual([expect.objectContaining({ tx_id: paidEth.hash, amount: eth.crypto_amount })]);
      expect((await paymentNow(t, m.acct.liveKey, usdt.id)).deposits).toEqual([expect.objectContaining({ tx_id: paidUsdt.hash, amount: usdt.crypto_amount })]);
      expect(proxy.calls.get('eth_getBlockReceipts') ?? 0).toBeLessThanOrEqual(1);
      expect(proxy.calls.get('eth_getLogs')).toBeGreaterThanOrEqual(1);
      // one receipt: the ETH deposit's (the USDT one is known successful from its log; the unwatched one is not read)
      expect(proxy.calls.get('eth_getTransactionReceipt')).toBe(1);

      await nodes.eth.mine(1);
      proxy.calls.clear();
      await watchOnce(t);
      expect(proxy.calls.get('eth_getBlockReceipts')).toBeUndefined();
    });

    it('a reverted ETH transfer to a deposit address is never counted', async () => {
      const m = await merchantWithAddresses(t, ['ETH']);
      const p = await createLivePayment(t, m, 'ETH');
      const to = p.deposit_address as Address;
      await nodes.eth.client.request({ method: 'anvil_setCode' as never, params: [to, REVERTING_CODE] as never });
      const hash: Hex = await nodes.eth.wallet.sendTransaction({ account: nodes.eth.funder, to, value: owed(p), gas: 100_000n, chain: null });
      const receipt = await nodes.eth.client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      expect(receipt.status).toBe('reverted');
      await nodes.eth.client.request({ method: 'anvil_setCode' as never, params: [to, '0x'] as never });
      await watchOnce(t);
      expect(await paymentNow(t, m.acct.liveKey, p.id)).toMatchObject({ status: 'pending', deposits: [] });
      // then paid for real, in a later block
      await pay(nodes, 'ETH', to, owed(p));
      await watchOnce(t);
      expect((await paymentNow(t, m.acct.liveKey, p.id)).status).toBe('detecting');
    });
  });
});
