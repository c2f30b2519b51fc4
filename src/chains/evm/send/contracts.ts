// The token contracts of an EVM chain: TOKEN_CONTRACTS where given (test networks, local nodes),
// the mainnet contracts otherwise.
import type { Chain } from '../../../config.ts';
import { tokensOnChain, type TokenSymbol } from '../../../tokens/index.ts';

export function tokenContracts(chain: Chain, configured: Record<string, string>): Partial<Record<TokenSymbol, string>> {
  const out: Partial<Record<TokenSymbol, string>> = {};
  for (const d of tokensOnChain(chain)) {
    const contract = configured[d.token] ?? d.contract;
    if (!d.native && contract) out[d.token] = contract;
  }
  return out;
}
