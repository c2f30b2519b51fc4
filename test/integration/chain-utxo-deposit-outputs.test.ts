// The unspent outputs a settlement sweeps from a deposit address, read from a real Litecoin node
// (regtest) through a proxy that counts requests: a deposit address paid by many transactions is
// read in a fixed number of round trips (its transactions in one batch, their outputs to it in
// another), not one per transaction and one per output; and what is skipped stays skipped (a
// transaction not yet mined, an output already spent, a transaction the node does not know).
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { setLiveNetwork } from '../../src/chains/addresses/index.ts';
import { encodeSegwit } from '../../src/chains/addresses/encoding.ts';
import { UTXO_NETWORKS } from '../../src/chains/addresses/networks.ts';
import { NodeEndpoints } from '../../src/chains/rpc/endpoints.ts';
import { UtxoReader } from '../../src/chains/utxo/reader.ts';
import { UtxoRpc } from '../../src/chains/utxo/rpc.ts';
import { unspentOutputs } from '../../src/chains/utxo/send/deposit-outputs.ts';
import { signSpend } from '../../src/chains/utxo/send/sign.ts';
import { scriptOfAddress } from '../../src/chains/utxo/index.ts';
import { UTXO_COINS, coinsToBaseUnits } from '../../src/chains/utxo/coins.ts';
import { WalletKeys } from '../../src/chains/wallets/index.ts';
import { litecoindOrSkip, startLitecoind, type LitecoinNode } from '../harness/litecoind.ts';
import { startRpcProxy, type RpcProxy } from '../harness/rpc-proxy.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe.runIf(litecoindOrSkip())('deposit outputs of a sweep on litecoind regtest', () => {
  let node: LitecoinNode;
  let proxy: RpcProxy;
  let rpc: UtxoRpc;
  let reader: UtxoReader;
  beforeAll(async () => {
    node = await startLitecoind();
    proxy = await startRpcProxy(node.url);
    rpc = new UtxoRpc(new NodeEndpoints([proxy.url]));
    reader = new UtxoReader('litecoin', rpc);
    // switches the live Litecoin addresses to regtest's format
    await reader.network();
  }, 60_000);
  afterAll(async () => { await proxy?.close(); await node?.close(); setLiveNetwork('litecoin', 'main'); });

  it('reads many deposits in two requests to the node, skipping the unmined, the spent and the unknown, in the order given', async () => {
    const network = UTXO_NETWORKS.litecoin.regtest;
    const keys = new WalletKeys(MNEMONIC);
    const { address, privateKey } = keys.deposit('litecoin', true, 31);
    const script = scriptOfAddress(network, address)!;
    const elsewhere = () => scriptOfAddress(network, encodeSegwit('rltc', 0, crypto.randomBytes(20)))!;
    /** Spends output `vout` of `txid` (to the address) with the address's key, to `outs`. */
    const spendFrom = async (txid: string, outs: Array<{ script: Uint8Array; amount: bigint }>) => {
      const prev = await node.rpc<{ vout: Array<{ n: number; value: number; scriptPubKey: { addresses?: string[] } }> }>('getrawtransaction', [txid, true]);
      const v = prev.vout.find((o) => o.scriptPubKey.addresses?.[0] === address)!;
      const spend = await signSpend(UTXO_COINS.litecoin, [{ txid, vout: v.n, amount: coinsToBaseUnits(v.value), script }], outs, privateKey);
      return node.rpc<string>('sendrawtransaction', [spend.raw]);
    };
    // 11 deposits of their own, mined
    const paid: string[] = [];
    for (let i = 0; i < 11; i++) paid.push(await node.pay(address, `0.0${(i % 9) + 1}`));
    const funding = await node.pay(address, '0.6');
    await node.mine(1);
    // a transaction paying the address twice (outputs 0 and 2), mined
    const twice = await spendFrom(funding, [{ script, amount: 20_000_000n }, { script: elsewhere(), amount: 9_990_000n }, { script, amount: 30_000_000n }]);
    await node.mine(1);
    // one deposit spent since, with the deposit address's key: its output is no longer unspent
    const spent = paid[3];
    await spendFrom(spent, [{ script: elsewhere(), amount: 3_000_000n }]);
    await node.mine(1);
    // one not yet mined, one the node does not know
    const unmined = await node.pay(address, '0.07');
    const unknown = crypto.randomBytes(32).toString('hex');
    const txs = [
      ...paid.map((txId, i) => ({ txId, block: i === 0 ? null : 200 + i })),
      { txId: twice, block: 250 },
      { txId: unmined, block: null },
      { txId: unknown, block: 5 },
      // a deposit listed twice (two payments' rows): read once, with the block its first row gives
      { txId: paid[1], block: 299 },
    ];

    proxy.requests = 0;
    proxy.calls.clear();
    const out = await unspentOutputs(rpc, network, address, txs, (a) => reader.normalizeAddress(a));
    // a fixed number of round trips however many deposits: their transactions, then their outputs to the address
    expect(proxy.requests).toBe(2);
    expect(proxy.calls.get('getrawtransaction')).toBe(paid.length + 3);
    // each mined deposit's outputs to the address (the spent one's too: the node says it is spent)
    expect(proxy.calls.get('gettxout')).toBe(paid.length + 2);

    // the mined deposits' unspent outputs to the address, in the order given
    expect(out.map((u) => [u.txid, u.vout])).toEqual([
      ...paid.filter((id) => id !== spent).map((id) => [id, expect.any(Number)]),
      [twice, 0], [twice, 2],
    ]);
    // a deposit whose block is not known: after every known one, older the more confirmations it has
    expect(out[0].height).toBe(Number.MAX_SAFE_INTEGER - 3);
    expect(out.slice(1, 10).map((u) => u.height)).toEqual([201, 202, 204, 205, 206, 207, 208, 209, 210]);
    expect(out.map((u) => u.amount)).toEqual([1, 2, 3, 5, 6, 7, 8, 9, 1, 2].map((c) => BigInt(c) * 1_000_000n).concat([20_000_000n, 30_000_000n]));
    for (const u of out) {
      expect(hex.encode(u.prevRaw!)).toBe(await node.rpc<string>('getrawtransaction', [u.txid, false]));
      expect(u.script).toEqual(script);
    }
  }, 60_000);
});
