import { describe, expect, it } from 'vitest';
import { EvmChainIds } from './evm-chain-ids.ts';

describe('EvmChainIds', () => {
  it('null per chain with a node until it answered; an answer that is no chain id counts as none; each node asked until it answered', async () => {
    let eth = 0;
    let bsc = 0;
    const ids = new EvmChainIds({
      ethereum: async () => { eth++; return 31337; },
      bsc: async () => { bsc++; if (bsc === 1) throw new Error('connect ECONNREFUSED'); return bsc === 2 ? 0 : 97; },
    }, 5);
    expect(ids.current()).toEqual({ ethereum: null, bsc: null });
    await ids.learn();
    expect(ids.current()).toEqual({ ethereum: 31337, bsc: null });
    await ids.learn();
    expect(ids.current()).toEqual({ ethereum: 31337, bsc: null }); // 0 is no chain id
    await ids.learn();
    expect(ids.current()).toEqual({ ethereum: 31337, bsc: 97 });
    await ids.learn();
    expect([eth, bsc]).toEqual([1, 3]); // nothing asked again once known
    expect(new EvmChainIds({}, 5).current()).toEqual({});
  });
});
