// The code of each chain family, loaded only when one of its chains has a node: viem and ox for
// Ethereum and BNB Smart Chain, @scure/btc-signer for Bitcoin, Litecoin and Dogecoin, and Tron's
// and XRP's own codecs. A gateway with no node (test mode needs none) or with a few does not hold
// the others: all of them loaded cost about 15 MB of JavaScript heap, measured idle on PGlite
// (55 against 40 MB in use), and 12–15 MB of the process's resident memory.
import type { Chain } from '../../config.ts';
import { UTXO_CHAINS } from '../addresses/index.ts';
import type { ChainNodes } from '../rpc/nodes.ts';

export const EVM_CHAINS: readonly Chain[] = ['ethereum', 'bsc'];

/** The families' modules for the chains of `nodes` (a family with no node there is left out). */
export async function loadChainKits(nodes: ChainNodes) {
  const any = (chains: readonly Chain[]) => chains.some((c) => nodes[c] !== undefined);
  const [evmSend, evmRead, utxo, utxoSend, tron, xrp] = await Promise.all([
    any(EVM_CHAINS) ? import('../evm/send/index.ts') : undefined,
    any(EVM_CHAINS) ? import('../evm/read/index.ts') : undefined,
    any(UTXO_CHAINS) ? import('../utxo/index.ts') : undefined,
    any(UTXO_CHAINS) ? import('../utxo/send/index.ts') : undefined,
    nodes.tron ? import('../tron/index.ts') : undefined,
    nodes.xrp ? import('../xrp/index.ts') : undefined,
  ]);
  return { evmSend, evmRead, utxo, utxoSend, tron, xrp };
}

export type ChainKits = Awaited<ReturnType<typeof loadChainKits>>;

/** A family's module for a chain with a node: loaded by loadChainKits from the same nodes. */
export function kitOf<K>(kit: K | undefined, chain: Chain): K {
  if (!kit) throw new Error(`the code of ${chain} was not loaded although it has a node`);
  return kit;
}
