// The Bitcoin-family reader against a real Litecoin 0.21 node in regtest: the network it reports
// (and the regtest address formats it switches the live addresses to), blocks with outputs summed
// per transaction and address, the mempool as 0-confirmation transfers, and where a transaction
// stands after a reorganisation (invalidateblock) and after a replace-by-fee double spend.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveDepositAddress, liveNetwork, seedFromMnemonic, setLiveNetwork, validatePayoutAddress } from '../../src/chains/addresses/index.ts';
import { NodeEndpoints } from '../../src/chains/rpc/endpoints.ts';
import { UtxoReader, WrongNetworkError } from '../../src/chains/utxo/reader.ts';
import { UtxoRpc } from '../../src/chains/utxo/rpc.ts';
import { litecoindOrSkip, startLitecoind, type LitecoinNode } from '../harness/litecoind.ts';
import { startRpcProxy } from '../harness/rpc-proxy.ts';

const seed = seedFromMnemonic('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');

describe.runIf(litecoindOrSkip())('UTXO reader on litecoind regtest', () => {
  let node: LitecoinNode;
  let reader: UtxoReader;
  beforeAll(async () => {
    node = await startLitecoind();
    reader = new UtxoReader('litecoin', new UtxoRpc(new NodeEndpoints([node.url])));
  }, 60_000);
  afterAll(async () => { await node?.close(); setLiveNetwork('litecoin', 'main'); });

  it('reports regtest and gives live Litecoin addresses the regtest format', async () => {
    expect(await reader.network()).toBe('regtest');
    expect(liveNetwork('litecoin')).toBe('regtest');
    const deposit = deriveDepositAddress(seed, 'litecoin', true, 7).address;
    expect(deposit).toMatch(/^rltc1q/);
    expect(await node.rpc<{ isvalid: boolean }>('validateaddress', [deposit])).toMatchObject({ isvalid: true });
    expect(validatePayoutAddress('LTC', deposit, true)).toEqual({ ok: true, normalized: deposit });
    expect(validatePayoutAddress('LTC', 'ltc1qx88q7zjd74lxwgkjmmwlqv5pd3vujuehexfttt', true)).toMatchObject({ ok: false });
  });

  it('refuses to read Litecoin as Bitcoin', async () => {
    const wrong = new UtxoReader('bitcoin', new UtxoRpc(new NodeEndpoints([node.url])));
    await expect(wrong.network()).rejects.toThrow(WrongNetworkError);
  });

  it('reads head, headers and a block with its transfers; the mempool empties once they are mined', async () => {
    const address = deriveDepositAddress(seed, 'litecoin', true, 1).address;
    const other = deriveDepositAddress(seed, 'litecoin', true, 2).address;
    // one transaction paying two deposit addresses, another paying the first again
    const txid = await node.rpc<string>('sendmany', ['', { [address]: 0.3, [other]: 0.2 }], 'miner');
    const second = await node.rpc<string>('sendtoaddress', [address, '0.45'], 'miner');
    const pending = await reader.pending!();
    expect(pending.filter((t) => t.to === address).map((t) => [t.txId, t.amount]).sort()).toEqual([[second, 45_000_000n], [txid, 30_000_000n]].sort());
    const [hash] = await node.mine(1);
    const head = await reader.head();
    expect(head.hash).toBe(hash);
    const block = (await reader.block(head.height))!;
    expect(block.parentHash).toBe((await reader.header(head.height - 1n))!.hash);
    expect(block.transfers.filter((t) => t.to === address || t.to === other).map((t) => [t.txId, t.to, t.amount]).sort()).toEqual([
      [txid, address, 30_000_000n], [txid, other, 20_000_000n], [second, address, 45_000_000n],
    ].sort());
    expect(await reader.block(head.height + 1n)).toBeNull();
    expect(await reader.header(head.height + 1n)).toBeNull();
    expect(await reader.pending!()).toEqual([]);
    expect(await reader.txState(txid)).toEqual({ kind: 'mined', height: head.height, blockHash: hash });
  });

  it('a transaction whose block is invalidated is pending again, then mined at another height', async () => {
    const address = deriveDepositAddress(seed, 'litecoin', true, 3).address;
    const txid = await node.pay(address, '0.5');
    const [a] = await node.mine(1);
    await node.rpc('invalidateblock', [a]);
    expect(await reader.txState(txid)).toEqual({ kind: 'pending' });
    await node.mine(2);
    const state = await reader.txState(txid);
    expect(state.kind).toBe('mined');
    expect(state.kind === 'mined' && state.blockHash).not.toBe(a);
  });

  it('a deposit replaced by fee (spending its inputs elsewhere) is conflicted, before and after the replacement is mined', async () => {
    const address = deriveDepositAddress(seed, 'litecoin', true, 4).address;
    const txid = await node.rpc<string>('sendtoaddress', [address, '0.6', '', '', false, true], 'miner');
    expect((await reader.pending!()).some((t) => t.txId === txid)).toBe(true);
    const { txid: replacement } = await node.rpc<{ txid: string }>('bumpfee', [txid], 'miner');
    const seen = await reader.pending!();
    expect(seen.some((t) => t.txId === txid)).toBe(false);
    expect(seen.some((t) => t.txId === replacement)).toBe(true);
    expect(await reader.txState(txid)).toEqual({ kind: 'conflicted' });
    await node.mine(1);
    expect(await reader.txState(txid)).toEqual({ kind: 'conflicted' });
    expect((await reader.txState(replacement)).kind).toBe('mined');
  });

  it('a coinbase output to a deposit address is not a deposit (unspendable for 100 blocks, it would be final at 6)', async () => {
    const address = deriveDepositAddress(seed, 'litecoin', true, 5).address;
    const [hash] = await node.rpc<string[]>('generatetoaddress', [1, address]);
    const head = await reader.head();
    expect(head.hash).toBe(hash);
    expect((await reader.block(head.height))!.transfers.filter((t) => t.to === address)).toEqual([]);
  });

  it('a bare-pubkey or 1-of-1 bare multisig output is not a deposit to the P2PKH address of its key', async () => {
    // Litecoin 0.21 writes the key's P2PKH address in `addresses` for the multisig (Dogecoin 1.14 for
    // both, node-shapes.test.ts); the service signs a P2PKH spend for such an address, which cannot
    // spend these scripts
    const legacy = await node.rpc<string>('getnewaddress', ['', 'legacy'], 'miner');
    const { pubkey } = await node.rpc<{ pubkey: string }>('getaddressinfo', [legacy], 'miner');
    const le = (n: bigint) => { let h = ''; for (let i = 0; i < 8; i++) h += ((n >> BigInt(8 * i)) & 0xffn).toString(16).padStart(2, '0'); return h; };
    const output = (script: string) => `${le(10_000_000n)}${(script.length / 2).toString(16).padStart(2, '0')}${script}`;
    const scripts = [`21${pubkey}ac`, `5121${pubkey}51ae`];
    const raw = `02000000000${scripts.length}${scripts.map(output).join('')}00000000`;
    const funded = await node.rpc<{ hex: string }>('fundrawtransaction', [raw, {}, false], 'miner');
    const signed = await node.rpc<{ hex: string }>('signrawtransactionwithwallet', [funded.hex], 'miner');
    const txid = await node.rpc<string>('sendrawtransaction', [signed.hex]);
    const decoded = await node.rpc<{ vout: Array<{ scriptPubKey: { type: string; addresses?: string[] } }> }>('getrawtransaction', [txid, true]);
    expect(decoded.vout.filter((v) => v.scriptPubKey.addresses?.[0] === legacy).map((v) => v.scriptPubKey.type).sort()).toEqual(['multisig']);
    expect((await reader.pending!()).filter((t) => t.txId === txid && t.to === legacy)).toEqual([]);
    await node.mine(1);
    const head = await reader.head();
    expect((await reader.block(head.height))!.transfers.filter((t) => t.txId === txid && t.to === legacy)).toEqual([]);
  });

  it("a many-input deposit double-spent through its last input is conflicted after a fixed number of round trips, not one or two per input", async () => {
    const proxy = await startRpcProxy(node.url);
    try {
      const counted = new UtxoReader('litecoin', new UtxoRpc(new NodeEndpoints([proxy.url])));
      await counted.network();
      // 12 outputs of the miner's wallet, then one transaction spending all of them to a deposit address
      const mine = await Promise.all(Array.from({ length: 12 }, () => node.minerAddress()));
      const funding = await node.rpc<string>('sendmany', ['', Object.fromEntries(mine.map((a) => [a, 0.1]))], 'miner');
      await node.mine(1);
      const outs = (await node.rpc<Array<{ txid: string; vout: number; address: string }>>('listunspent', [1, 9999999, mine], 'miner')).filter((u) => u.txid === funding);
      expect(outs).toHaveLength(12);
      const address = deriveDepositAddress(seed, 'litecoin', true, 8).address;
      const sign = async (inputs: typeof outs, to: Record<string, number>) => {
        const raw = await node.rpc<string>('createrawtransaction', [inputs.map((u) => ({ txid: u.txid, vout: u.vout })), to, 0, true]);
        return (await node.rpc<{ hex: string }>('signrawtransactionwithwallet', [raw], 'miner')).hex;
      };
      const deposit = await node.rpc<string>('sendrawtransaction', [await sign(outs, { [address]: 1.19 })]);
      expect((await counted.pending!()).some((t) => t.txId === deposit)).toBe(true);
      // the last input spent again by a transaction paying more fee: the deposit leaves the mempool
      // (its fee beats the deposit's whole fee, a rate above the node's default cap: 0 lifts it)
      await node.rpc<string>('sendrawtransaction', [await sign(outs.slice(-1), { [await node.minerAddress()]: 0.07 }), 0]);

      const before = proxy.requests;
      expect(await counted.txState(deposit)).toEqual({ kind: 'conflicted' });
      // its own transaction (gone), every input's outpoint at once, the spent one's parent
      expect(proxy.requests - before).toBeLessThanOrEqual(3);
      expect(proxy.calls.get('gettxout')).toBe(12);
    } finally {
      await proxy.close();
    }
  });

  it('a transaction the node never saw is unknown', async () => {
    expect(await reader.txState('00'.repeat(32))).toEqual({ kind: 'unknown' });
  });
});
