// Coins moved to a deposit address by a contract's internal call (issue 13): seen through the
// node's call traces (anvil's debug_traceBlockByHash with the callTracer), never when the call
// that moved them reverted (the whole transaction, or only the subcall). A node without call
// traces is logged once and its other deposits are seen as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { Address, Hex } from 'viem';
import { describeEachDb } from '../harness/databases.ts';
import { anvilOrSkip, deployForwarder, forwarderArtifact } from '../harness/anvil.ts';
import { useEvmNodes } from '../harness/evm-nodes.ts';
import { startRpcProxy, type RpcProxy } from '../harness/rpc-proxy.ts';
import { createLivePayment, merchantWithAddresses, owed, pay, startChainApp, type ChainApp } from '../harness/chain-send.ts';
import { paymentNow, watchOnce } from '../harness/chain-watch.ts';
import type { Json } from '../harness/payments.ts';

type Fn = 'forward' | 'forwardThenRevert' | 'forwardInRevertedSubcall';

describe.runIf(anvilOrSkip())('internal transfers', () => {
  const nodes = useEvmNodes();
  let forwarder: Address;
  beforeAll(async () => { forwarder = await deployForwarder(nodes.eth); });

  /** The funder calls the forwarder's `fn` with `value` for `to`; gas given, so a reverting call is mined. */
  const viaContract = async (fn: Fn, to: string, value: bigint): Promise<{ hash: Hex; status: string }> => {
    const hash = await nodes.eth.wallet.writeContract({
      address: forwarder, abi: forwarderArtifact().abi as never, functionName: fn as never, args: [to] as never, value, gas: 300_000n, chain: null, account: nodes.eth.funder,
    });
    const r = await nodes.eth.client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    return { hash, status: r.status };
  };
  const depositsOf = async (t: ChainApp, key: string, p: Json) => (await paymentNow(t, key, p.id)).deposits;

  describeEachDb('on a node with call traces', (h) => {
    let t: ChainApp;
    beforeAll(async () => {
      t = await startChainApp(h.db(), nodes);
      await watchOnce(t);
    });
    afterAll(async () => { await t.close(); });

    it('ETH a contract forwards to a deposit address is a deposit of the forwarding transaction', async () => {
      const m = await merchantWithAddresses(t, ['ETH']);
      const p = await createLivePayment(t, m, 'ETH');
      const { hash, status } = await viaContract('forward', p.deposit_address, owed(p));
      expect(status).toBe('success');
      await watchOnce(t);
      expect(await depositsOf(t, m.acct.liveKey, p)).toEqual([expect.objectContaining({ tx_id: hash, token: 'ETH', amount: p.crypto_amount })]);
      expect((await paymentNow(t, m.acct.liveKey, p.id)).status).toBe('detecting');
    });

    it('forwarded and then reverted: nothing', async () => {
      const m = await merchantWithAddresses(t, ['ETH']);
      const p = await createLivePayment(t, m, 'ETH');
      expect((await viaContract('forwardThenRevert', p.deposit_address, owed(p))).status).toBe('reverted');
      await watchOnce(t);
      expect(await depositsOf(t, m.acct.liveKey, p)).toEqual([]);
    });

    it('forwarded in a subcall that reverted, the transaction succeeding: nothing', async () => {
      const m = await merchantWithAddresses(t, ['ETH']);
      const p = await createLivePayment(t, m, 'ETH');
      expect((await viaContract('forwardInRevertedSubcall', p.deposit_address, owed(p))).status).toBe('success');
      await watchOnce(t);
      expect(await depositsOf(t, m.acct.liveKey, p)).toEqual([]);
      expect(await nodes.eth.client.getBalance({ address: p.deposit_address as Address })).toBe(0n);
    });
  });

  describeEachDb('on a node without call traces', (h) => {
    let t: ChainApp;
    let proxy: RpcProxy;
    const lines: string[] = [];
    beforeAll(async () => {
      proxy = await startRpcProxy(nodes.eth.url, ['debug_traceBlockByHash']);
      const log = pino({ level: 'warn' }, { write: (line: string) => { lines.push(line); } });
      t = await startChainApp(h.db(), nodes, { ETHEREUM_RPC_URL: proxy.url }, { log });
      await watchOnce(t);
    });
    afterAll(async () => { await t.close(); await proxy.close(); });

    it('logs once that internal transfers are not seen, asks no more, and sees direct deposits', async () => {
      const m = await merchantWithAddresses(t, ['ETH']);
      const internal = await createLivePayment(t, m, 'ETH');
      const direct = await createLivePayment(t, m, 'ETH');
      await viaContract('forward', internal.deposit_address, owed(internal));
      await watchOnce(t);
      await pay(nodes, 'ETH', direct.deposit_address, owed(direct));
      await watchOnce(t);
      expect(await depositsOf(t, m.acct.liveKey, internal)).toEqual([]);
      expect(await depositsOf(t, m.acct.liveKey, direct)).toHaveLength(1);
      const warned = lines.filter((l) => l.includes('no call tracer'));
      expect(warned).toHaveLength(1);
      expect(JSON.parse(warned[0])).toMatchObject({ chain: 'ethereum', msg: expect.stringContaining('internal call are not seen') });
      expect(proxy.calls.get('debug_traceBlockByHash')).toBe(1);
    });
  });
});
