// The watching half of the chain layer, composed: a ChainReader per chain with a node (Ethereum and
// BNB Smart Chain here; Tron, XRP and the Bitcoin family from the sending half, which shares their
// connections) handed to
// the chain-agnostic watcher, over the same NodeEndpoints the sending half uses.
import type { Chain } from '../../config.ts';
import type { Platform } from '../../platform/context.ts';
import type { MarketSource } from '../../market/index.ts';
import type { DepositIntake } from '../../payments/index.ts';
import type { ChainNodes } from '../rpc/nodes.ts';
import { ChainWatching, type ChainReader, type OwnWallet, type WatchingOptions } from '../watch/index.ts';
import { tokenContracts } from '../../tokens/index.ts';
import { EVM_CHAINS, kitOf, type ChainKits } from '../sending/index.ts';

/**
 * `kits`: the chain families' code the sending half loaded for these nodes. `shared`: readers made
 * by the sending half over a connection it keeps (Tron, XRP), used as they are.
 */
/** `clock`: when a token contract found missing is asked of the node again (tokens/contract-checks.ts). */
export function chainReaders(config: Platform['config'], nodes: ChainNodes, kits: ChainKits, shared: Partial<Record<Chain, ChainReader>> = {}, log?: Platform['log'], clock?: Platform['clock']): ChainReader[] {
  const readers: ChainReader[] = Object.values(shared).filter((r): r is ChainReader => r !== undefined && nodes[r.chain] !== undefined);
  for (const chain of EVM_CHAINS) {
    const endpoints = nodes[chain];
    if (!endpoints) continue;
    const { EvmReader } = kitOf(kits.evmRead, chain);
    readers.push(new EvmReader(chain, endpoints, tokenContracts(chain, config.tokenContracts), { log: log?.child({ chain }), clock }));
  }
  return readers;
}

export function createChainWatching(
  platform: Platform, nodes: ChainNodes, kits: ChainKits, deps: { intake: DepositIntake; market: MarketSource }, opts: WatchingOptions = {},
  shared: Partial<Record<Chain, ChainReader>> = {}, own: Partial<Record<Chain, OwnWallet>> = {},
): ChainWatching {
  return new ChainWatching(platform, nodes, chainReaders(platform.config, nodes, kits, shared, platform.log, platform.clock), deps, opts, own);
}
