// The market's network fee quote for the chains whose transfer family prices its own sweep (Tron
// from its chain parameters, XRP from the ledger's fee): the family of the token's chain is asked.
import type { Chain } from '../../config.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../../tokens/index.ts';
import type { NetworkFeeQuoter } from '../../market/network-fee-port.ts';

export interface SweepFeeSource {
  quoteSweepFee(token: TokenSymbol): Promise<bigint>;
}

/** No family for the token's chain, or a node that cannot answer now: no quote (null). */
export function familyFeeQuoter(families: Partial<Record<Chain, SweepFeeSource>>): NetworkFeeQuoter {
  return {
    quoteSweepFee: async (token) => {
      const family = families[TOKEN_DEFS[token].chain];
      return family ? family.quoteSweepFee(token).catch(() => null) : null;
    },
  };
}
