// A hot wallet's balances on an EVM chain: the native coin, then each token whose contract answers
// on the node (a contract with no code there is left out).
import type { Chain } from '../../../config.ts';
import { tokensOnChain, type TokenSymbol } from '../../../tokens/index.ts';
import type { EvmRpc } from './rpc.ts';

export async function evmWalletBalances(
  rpc: EvmRpc, chain: Chain, address: string, contracts: Partial<Record<TokenSymbol, string>>,
): Promise<{ token: TokenSymbol; amount: bigint }[]> {
  const defs = tokensOnChain(chain);
  const amounts = await Promise.all(defs.map((d) => {
    if (d.native) return rpc.balance(address);
    const contract = contracts[d.token];
    return contract ? rpc.tokenBalance(contract, address) : Promise.resolve(null);
  }));
  return defs.flatMap((d, i) => (amounts[i] === null ? [] : [{ token: d.token, amount: amounts[i] }]));
}
