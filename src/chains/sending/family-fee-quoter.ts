// The market's network fee quote for the chains whose transfer family prices its own sweep (Tron
// from its chain parameters, XRP from the ledger's fee): the family of the token's chain is asked.
// And the quoters of all chain families combined into the one the market asks.
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

/** Asks the quoter of the token's chain family. */
export function combinedFeeQuoter(...quoters: NetworkFeeQuoter[]): NetworkFeeQuoter {
  return {
    async quoteSweepFee(token) {
      for (const q of quoters) {
        const fee = await q.quoteSweepFee(token);
        if (fee !== null) return fee;
      }
      return null;
    },
  };
}
