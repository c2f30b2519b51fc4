// One NodeEndpoints per configured chain, made once at start and shared by everything that talks to
// that chain's nodes (watching, sending, balances, fee quotes), so they agree on the node in use.
import { CHAINS, type Chain, type Config } from '../../config.ts';
import { NodeEndpoints } from './endpoints.ts';

export type ChainNodes = Partial<Record<Chain, NodeEndpoints>>;

export function chainNodes(config: Pick<Config, 'rpc'>): ChainNodes {
  const nodes: ChainNodes = {};
  for (const chain of CHAINS) if (config.rpc[chain].length > 0) nodes[chain] = new NodeEndpoints(config.rpc[chain]);
  return nodes;
}
