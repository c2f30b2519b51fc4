// The token contracts of a chain (Ethereum, BNB Smart Chain, Tron): TOKEN_CONTRACTS where given
// (test networks, local nodes), the mainnet contracts otherwise.
import type { Chain } from '../config.ts';
import { tokensOnChain, type TokenSymbol } from './catalog.ts';

export function tokenContracts(chain: Chain, configured: Record<string, string>): Partial<Record<TokenSymbol, string>> {
  const out: Partial<Record<TokenSymbol, string>> = {};
  for (const d of tokensOnChain(chain)) {
    const contract = configured[d.token] ?? d.contract;
    if (!d.native && contract) out[d.token] = contract;
  }
  return out;
}
