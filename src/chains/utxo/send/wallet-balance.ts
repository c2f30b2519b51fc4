// A hot wallet's balance on a Bitcoin-family chain, from the node's UTXO set (`scantxoutset`, no
// node wallet needed; Bitcoin Core 0.17+ and Litecoin 0.21, not Dogecoin 1.14, whose balance is
// then left out of /admin/wallets).
import type { UtxoChain } from '../../addresses/index.ts';
import { UTXO_COINS, coinsToBaseUnits } from '../coins.ts';
import type { UtxoRpc } from '../rpc.ts';
import type { TokenSymbol } from '../../../tokens/index.ts';

export async function utxoWalletBalances(rpc: UtxoRpc, chain: UtxoChain, address: string): Promise<{ token: TokenSymbol; amount: bigint }[]> {
  const scan = await rpc.call<{ total_amount: number }>('scantxoutset', ['start', [`addr(${address})`]]);
  return [{ token: UTXO_COINS[chain].token, amount: coinsToBaseUnits(scan.total_amount) }];
}
