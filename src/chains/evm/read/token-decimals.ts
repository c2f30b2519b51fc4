// The token contracts the watcher reads, checked against the token's decimals (USDT has 6 on
// Ethereum and 18 on BNB Smart Chain): a contract with other decimals would credit amounts a
// thousand billion times off, so the chain is not read at all until TOKEN_CONTRACTS is fixed. A
// contract with no code on this node (mainnet contracts on a test network) is left out, and its
// token is unavailable in live mode (tokens/live-contracts.ts; CONTRACT.md TOKEN_CONTRACTS): a live
// payment in it would wait for a deposit nothing watches.
import { decodeFunctionResult, encodeFunctionData, erc20Abi, type Hex, type PublicClient } from 'viem';
import { checkContractDecimals, setContractMissing, type TokenSymbol } from '../../../tokens/index.ts';

/** `contracts`: the watched contracts by lower-case address; `missing`: the tokens whose contract has no code on the node. */
export async function checkTokenDecimals(client: PublicClient, contracts: Partial<Record<TokenSymbol, string>>): Promise<{ contracts: Map<string, TokenSymbol>; missing: TokenSymbol[] }> {
  const out = new Map<string, TokenSymbol>();
  const missing: TokenSymbol[] = [];
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'decimals' });
  for (const [token, address] of Object.entries(contracts) as [TokenSymbol, string][]) {
    const code = await client.getCode({ address: address as Hex });
    const absent = !code || code === '0x';
    setContractMissing(token, address, absent);
    if (absent) {
      missing.push(token);
      continue;
    }
    const { data: answer } = await client.call({ to: address as Hex, data });
    const decimals = answer && answer !== '0x' ? decodeFunctionResult({ abi: erc20Abi, functionName: 'decimals', data: answer }) : null;
    checkContractDecimals(token, address, decimals);
    out.set(address.toLowerCase(), token);
  }
  return { contracts: out, missing };
}
