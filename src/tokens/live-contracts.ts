// Token contracts found with no code on their chain's live node (CONTRACT.md Environment,
// TOKEN_CONTRACTS: "a contract with no code on the node makes that token unavailable in live mode
// (logged)"): the mainnet contracts on a test network or local node, say. The EVM and Tron readers
// record what they find when they first read the node, and again every few minutes while a contract
// is missing (chains/evm/read/token-decimals.ts, tokens/contract-checks.ts); the payments'
// catalog leaves such a token out of live listings and refuses live payments in it, since nothing
// would ever see its deposits. Keyed by token and contract, one setting per process, like the
// Bitcoin-family live networks (chains/addresses/live-networks.ts).
import { tokenDef, type TokenSymbol } from './catalog.ts';

const missing = new Set<string>();
const keyOf = (token: TokenSymbol, contract: string) => `${token}:${contract.toLowerCase()}`;

export function setContractMissing(token: TokenSymbol, contract: string, isMissing: boolean): void {
  if (isMissing) missing.add(keyOf(token, contract)); else missing.delete(keyOf(token, contract));
}

export function contractMissing(token: TokenSymbol, contract: string): boolean {
  return missing.size > 0 && missing.has(keyOf(token, contract));
}

/**
 * Throws when a configured contract's decimals() is not its token's (USDT: 6 on Ethereum and Tron,
 * 18 on BNB Smart Chain): amounts would be read powers of ten off, so a chain reader refuses to
 * read the chain until TOKEN_CONTRACTS is fixed. `decimals` null: the contract did not answer.
 */
export function checkContractDecimals(token: TokenSymbol, contract: string, decimals: number | null): void {
  const expected = tokenDef(token).decimals;
  if (decimals !== expected) throw new Error(`TOKEN_CONTRACTS: ${token} at ${contract} has ${decimals ?? 'no'} decimals, the token has ${expected}`);
}
