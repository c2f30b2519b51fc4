// Faults around the chain watcher on real nodes (CONTRACT.md "Live chains", issue 13 "Bad input and
// faults"): a deposit made while the gateway was down is found after its restart; a node outage
// marks the chain `down` (the API keeps serving) and watching resumes from the cursor; a URL that
// fails moves on to the next; a node that changes chain id, or answers nonsense, credits nothing;
// a tip older than the chain's limit is `stale`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { anvilOrSkip } from '../harness/anvil.ts';
import { useEvmNodes } from '../harness/evm-nodes.ts';
import { freePort } from '../harness/process.ts';
import { ADMIN, createLivePayment, merchantWithAddresses, owed, pay, startChainApp, type ChainApp } from '../harness/chain-send.ts';
import { paymentNow, watchOnce } from '../harness/chain-watch.ts';
import type { Json } from '../harness/payments.ts';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';

async function chainState(t: ChainApp, chain: string): Promise<Json> {
  const res = await t.app.inject({ method: 'GET', url: '/admin/chains', headers: ADMIN });
  expect(res.statusCode).toBe(200);
  return res.json().chains.find((c: Json) => c.chain === chain);
}

/** A JSON-RPC server that answers every call, but with nonsense blocks. */
async function nonsenseNode(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      const call = JSON.parse(body) as { id: number; method: string };
      const result = call.method === 'eth_chainId' ? '0x1' : call.method === 'eth_getCode' ? '0x' : { number: 'not a number', hash: 42, transactions: 'none' };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

describe.runIf(anvilOrSkip())('chain watcher faults', () => {
  const nodes = useEvmNodes();

  describeEachDb('restarts, outages, failover, bad nodes', (h) => {
    const mnemonic = generateMnemonic(wordlist);
    let t: ChainApp;
    beforeAll(async () => {
      t = await startChainApp(h.db(), nodes, { WALLET_MNEMONIC: mnemonic });
      await watchOnce(t);
    });
    afterAll(async () => { await t.close(); });

    it('a deposit made while the gateway was down is found after its restart', async () => {
      const m = await merchantWithAddresses(t, ['USDT_ERC20']);
      const p = await createLivePayment(t, m, 'USDT_ERC20');
      await t.close();
      await pay(nodes, 'USDT_ERC20', p.deposit_address, owed(p));
      await nodes.eth.mine(5);
      t = await startChainApp(h.db(), nodes, { WALLET_MNEMONIC: mnemonic });
      await watchOnce(t);
      const now = await paymentNow(t, m.acct.liveKey, p.id);
      expect(now.status).toBe('confirmed');
      expect(now.deposits).toEqual([expect.objectContaining({ confirmations: 6, status: 'final' })]);
    });

    it('a node outage: the chain is down, the API keeps serving, and a payment made after the node is back is found', async () => {
      const m = await merchantWithAddresses(t, ['ETH']);
      const p = await createLivePayment(t, m, 'ETH');
      await nodes.eth.stop();
      try {
        await watchOnce(t);
        const down = await chainState(t, 'ethereum');
        expect(down).toMatchObject({ status: 'down', last_error: expect.stringContaining('no node answered') });
        expect(await chainState(t, 'bsc')).toMatchObject({ last_error: null });
        expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
        expect((await paymentNow(t, m.acct.liveKey, p.id)).status).toBe('pending');
        const metrics = (await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer test-admin-token' } })).body;
        expect(metrics).toContain('gateway_chain_up{chain="ethereum"} 0');
        expect(metrics).toContain('gateway_chain_up{chain="bsc"} 1');
      } finally {
        await nodes.eth.start();
      }
      await pay(nodes, 'ETH', p.deposit_address, owed(p));
      await watchOnce(t);
      expect(await paymentNow(t, m.acct.liveKey, p.id)).toMatchObject({ status: 'detecting', confirmations: 1 });
      expect((await chainState(t, 'ethereum')).status).not.toBe('down');
    });

    it('a node that changes chain id: down, nothing credited from it, and watching resumes when it serves chain 1 again', async () => {
      const m = await merchantWithAddresses(t, ['ETH']);
      const p = await createLivePayment(t, m, 'ETH');
      const setChainId = (id: number) => nodes.eth.test.request({ method: 'anvil_setChainId', params: [id] } as never);
      await setChainId(5);
      try {
        await pay(nodes, 'ETH', p.deposit_address, owed(p));
        await watchOnce(t);
        expect(await chainState(t, 'ethereum')).toMatchObject({ status: 'down', last_error: expect.stringContaining('network 5, not 1') });
        expect((await paymentNow(t, m.acct.liveKey, p.id)).status).toBe('pending');
      } finally {
        await setChainId(1);
      }
      await watchOnce(t);
      expect((await paymentNow(t, m.acct.liveKey, p.id)).status).toBe('detecting');
    });

    it('a tip older than the chain\'s limit is stale (Ethereum 5 minutes)', async () => {
      const start = t.clock.now();
      await nodes.eth.mine(1);
      const tip = await nodes.eth.client.getBlock();
      t.clock.set(new Date(Number(tip.timestamp) * 1000 + 6 * 60_000));
      try {
        await watchOnce(t);
        const stale = await chainState(t, 'ethereum');
        expect(stale).toMatchObject({ status: 'stale', height: Number(tip.number), behind_seconds: 6 * 60 });
      } finally {
        t.clock.set(start);
      }
      await nodes.eth.mine(1);
      t.clock.set(new Date(Number((await nodes.eth.client.getBlock()).timestamp) * 1000));
      await watchOnce(t);
      expect((await chainState(t, 'ethereum')).status).toBe('ok');
    });
  });

  describeEachDb('several node URLs', (h) => {
    it('a URL that fails moves on to the next; a node answering nonsense is down and credits nothing', async () => {
      const dead = `http://127.0.0.1:${await freePort()}`;
      const nonsense = await nonsenseNode();
      const t = await startChainApp(h.db(), nodes, { ETHEREUM_RPC_URL: `${dead},${nodes.eth.url}`, BSC_RPC_URL: nonsense.url });
      try {
        await watchOnce(t);
        const m = await merchantWithAddresses(t, ['ETH']);
        const p = await createLivePayment(t, m, 'ETH');
        await pay(nodes, 'ETH', p.deposit_address, owed(p));
        await watchOnce(t);
        expect((await paymentNow(t, m.acct.liveKey, p.id)).status).toBe('detecting');
        expect(await chainState(t, 'ethereum')).toMatchObject({ status: 'ok', rpc_url_index: 1 });
        const bsc = await chainState(t, 'bsc');
        expect(bsc).toMatchObject({ status: 'down', height: null, rpc_url_index: 0 });
        expect(bsc.last_error).toEqual(expect.any(String));
      } finally {
        await t.close();
        await nonsense.close();
      }
    });
  });
});
