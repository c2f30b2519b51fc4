// Token contracts found with no code on their chain's live node (CONTRACT.md Environment,
// TOKEN_CONTRACTS: "a contract with no code on the node makes that token unavailable in live mode
// (logged)"): the mainnet contracts on a test network or local node, say. The EVM reader records
// what it finds when it first reads the node (chains/evm/read/token-decimals.ts); the payments'
// catalog leaves such a token out of live listings and refuses live payments in it, since nothing
// would ever see its deposits. Keyed by token and contract, one setting per process, like the
// Bitcoin-family live networks (chains/addresses/live-networks.ts).
import type { TokenSymbol } from './catalog.ts';

const missing = new Set<string>();
const keyOf = (token: TokenSymbol, contract: string) => `${token}:${contract.toLowerCase()}`;

export function setContractMissing(token: TokenSymbol, contract: string, isMissing: boolean): void {
  if (isMissing) missing.add(keyOf(token, contract)); else missing.delete(keyOf(token, contract));
}

export function contractMissing(token: TokenSymbol, contract: string): boolean {
  return missing.size > 0 && missing.has(keyOf(token, contract));
}
