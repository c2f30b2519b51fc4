// CONTRACT.md "Live chains": a Bitcoin-family node that reports a test network (getblockchaininfo
// chain `test`, `testnet4`, `signet` or `regtest`) gets that network's address formats for live
// deposit, payout and hot-wallet addresses. The reader knows the network by the node's genesis
// block (every signet shares one), against a node answering as Bitcoin Core does.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { liveNetwork, modeNetwork, setLiveNetwork } from '../addresses/index.ts';
import { NodeEndpoints } from '../rpc/endpoints.ts';
import { startReplayNode, type ReplayNode } from '../../../test/harness/rpc-replay.ts';
import { UtxoReader } from './reader.ts';
import { UtxoRpc } from './rpc.ts';

const BITCOIN = [
  ['main', '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f', 'main', 'bc'],
  ['test', '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943', 'test', 'tb'],
  ['testnet4', '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043', 'test', 'tb'],
  ['signet', '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6', 'test', 'tb'],
  ['regtest', '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206', 'regtest', 'bcrt'],
] as const;

const nodes: ReplayNode[] = [];
beforeAll(async () => {
  for (const [chain, genesis] of BITCOIN) nodes.push(await startReplayNode({ 'getblockhash [0]': genesis, 'getblockchaininfo []': { chain } }));
});
afterEach(() => setLiveNetwork('bitcoin', 'main'));
afterAll(async () => { await Promise.all(nodes.map((n) => n.close())); });

it.each(BITCOIN.map((b, i) => [...b, i] as const))('a Bitcoin Core node on %s: live addresses in that network\'s format', async (chain, _genesis, kind, hrp, i) => {
  const reader = new UtxoReader('bitcoin', new UtxoRpc(new NodeEndpoints([nodes[i].url])));
  expect(await reader.network()).toBe(chain);
  expect(liveNetwork('bitcoin')).toBe(kind);
  expect(modeNetwork('bitcoin', true).hrp).toBe(hrp);
  // test mode keeps its own formats whatever the node
  expect(modeNetwork('bitcoin', false).hrp).toBe('tb');
});
