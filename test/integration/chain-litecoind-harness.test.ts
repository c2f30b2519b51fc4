// The Litecoin test node itself: regtest with a funded miner wallet, payments to an address the node
// does not own show in the block, and a stopped node comes back on the same port with the same chain
// (what the Bitcoin-family outage tests rely on).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeSegwit } from '../../src/chains/addresses/encoding.ts';
import { litecoindOrSkip, startLitecoind, type LitecoinNode } from '../harness/litecoind.ts';

describe.runIf(litecoindOrSkip())('litecoind harness', () => {
  let node: LitecoinNode;
  beforeAll(async () => { node = await startLitecoind(); }, 60_000);
  afterAll(async () => { await node?.close(); });

  it('runs regtest at height 101 with a miner that can spend', async () => {
    const info = await node.rpc<{ chain: string; blocks: number }>('getblockchaininfo');
    expect(info).toMatchObject({ chain: 'regtest', blocks: 101 });
    expect(await node.rpc<number>('getbalance', [], 'miner')).toBeGreaterThan(0);
  });

  it('a payment to a foreign address is in the mempool, then in the next block with its output', async () => {
    // A regtest P2WPKH address of a key the node does not hold.
    const address = encodeSegwit('rltc', 0, new Uint8Array(20).fill(7));
    const txid = await node.pay(address, '1.25');
    expect(await node.rpc<string[]>('getrawmempool')).toContain(txid);
    const [hash] = await node.mine(1);
    const block = await node.rpc<{ tx: Array<{ txid: string; vout: Array<{ value: number; scriptPubKey: { addresses?: string[] } }> }> }>('getblock', [hash, 2]);
    const tx = block.tx.find((t) => t.txid === txid)!;
    expect(tx.vout.some((o) => o.value === 1.25 && o.scriptPubKey.addresses?.[0] === address)).toBe(true);
  });

  it('a stopped node restarts on the same port with the same chain', async () => {
    const tip = await node.rpc<string>('getbestblockhash');
    await node.stop();
    await expect(node.rpc('getblockcount')).rejects.toThrow();
    await node.start();
    expect(await node.rpc<string>('getbestblockhash')).toBe(tip);
    await node.mine(1);
    expect(await node.rpc<number>('getbalance', [], 'miner')).toBeGreaterThan(0);
  });
});
