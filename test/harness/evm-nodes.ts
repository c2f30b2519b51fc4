// The two EVM test nodes of a chain test file (anvil, chain ids 1 and 56, with the test USDT),
// started once for the calling describe block and stopped after it. The object is filled in by
// the block's beforeAll.
import { afterAll, beforeAll } from 'vitest';
import { startAnvil } from './anvil.ts';
import { deployTokens, type EvmNodes } from './chain-send.ts';

export function useEvmNodes(): EvmNodes {
  const nodes = {} as EvmNodes;
  beforeAll(async () => {
    const [eth, bsc] = await Promise.all([startAnvil({ chainId: 1 }), startAnvil({ chainId: 56 })]);
    Object.assign(nodes, await deployTokens(eth, bsc));
  });
  afterAll(async () => { await Promise.all([nodes.eth?.close(), nodes.bsc?.close()]); });
  return nodes;
}
